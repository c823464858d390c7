import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { dueDayOf, needsNotice, noticeText, reportStatuses, statusOf, type ReportArrival } from './report-deadlines.ts';

// Deadlines worked out by hand: 08:30 Stockholm is 07:30Z in winter (CET) and 06:30Z
// in summer (CEST); summer time 2026 runs from 29 March to 25 October.

test('a report is due on the banking day after its as-of date', () => {
  assert.equal(dueDayOf('2026-11-18'), '2026-11-19', 'Wednesday → Thursday');
  assert.equal(dueDayOf('2026-11-20'), '2026-11-23', 'Friday → Monday');
  assert.equal(dueDayOf('2026-04-02'), '2026-04-07', 'Maundy Thursday → the Tuesday after Easter Monday');
  assert.equal(dueDayOf('2026-11-21'), '2026-11-23', 'a Saturday as-of date → Monday');
});

test('on time up to and including 08:30, late after; pending until the deadline, missing after', () => {
  assert.equal(statusOf('2026-11-19', new Date('2026-11-19T07:30:00Z'), new Date('2026-11-19T12:00:00Z')), 'on_time');
  assert.equal(statusOf('2026-11-19', new Date('2026-11-19T07:30:01Z'), new Date('2026-11-19T12:00:00Z')), 'late');
  assert.equal(statusOf('2026-11-19', undefined, new Date('2026-11-19T07:30:00Z')), 'pending');
  assert.equal(statusOf('2026-11-19', undefined, new Date('2026-11-19T07:30:01Z')), 'missing');
});

test('across the DST change the deadline is 08:30 local: 06:30Z in summer, 07:30Z in winter', () => {
  assert.equal(statusOf('2026-03-30', new Date('2026-03-30T06:45:00Z'), new Date('2026-03-31T00:00:00Z')), 'late', 'Monday after summer time began');
  assert.equal(statusOf('2026-10-26', new Date('2026-10-26T07:15:00Z'), new Date('2026-10-27T00:00:00Z')), 'on_time', 'Monday after it ended');
  assert.equal(statusOf('2026-03-27', new Date('2026-03-27T07:15:00Z'), new Date('2026-03-28T00:00:00Z')), 'on_time', 'Friday before, still CET');
});

test('the earliest arrival decides; expected custodians without arrivals are pending, then missing; a custodian known only from an arrival is listed too', () => {
  const arrival = (custodianId: string, kind: 'Holdings' | 'Transactions', dueDay: string, at: string, messageId: string): ReportArrival =>
    ({ custodianId, kind, dueDay, arrivedAt: new Date(at), messageId });
  const statuses = reportStatuses({
    custodians: ['bank-a', 'bank-b'],
    dueDays: ['2026-11-19', '2026-11-20'],
    arrivals: [
      arrival('bank-a', 'Holdings', '2026-11-19', '2026-11-19T09:00:00Z', 'LATE-COPY'),
      arrival('bank-a', 'Holdings', '2026-11-19', '2026-11-19T06:00:00Z', 'EARLY'),
      arrival('bank-a', 'Transactions', '2026-11-19', '2026-11-19T08:00:00Z', 'T-LATE'),
      arrival('bank-c', 'Holdings', '2026-11-20', '2026-11-20T06:00:00Z', 'C'),
      arrival('bank-a', 'Holdings', '2026-11-25', '2026-11-25T06:00:00Z', 'OTHER-DAY'),
    ],
    now: new Date('2026-11-20T07:00:00Z'),
  });
  const brief = statuses.map((s) => `${s.dueDay} ${s.custodianId} ${s.kind} ${s.status} ${s.messageId ?? '-'}`);
  assert.deepEqual(brief, [
    '2026-11-19 bank-a Holdings on_time EARLY',
    '2026-11-19 bank-a Transactions late T-LATE',
    '2026-11-19 bank-b Holdings missing -',
    '2026-11-19 bank-b Transactions missing -',
    '2026-11-19 bank-c Holdings missing -',
    '2026-11-19 bank-c Transactions missing -',
    '2026-11-20 bank-a Holdings pending -',
    '2026-11-20 bank-a Transactions pending -',
    '2026-11-20 bank-b Holdings pending -',
    '2026-11-20 bank-b Transactions pending -',
    '2026-11-20 bank-c Holdings on_time C',
    '2026-11-20 bank-c Transactions pending -',
  ]);
  assert.deepEqual(statuses[0]?.deadline, new Date('2026-11-19T07:30:00Z'));
  assert.equal(statuses.filter(needsNotice).length, 5);
});

test('the notice lists missing and late reports in their own sections', () => {
  const deadline = new Date('2026-11-19T07:30:00Z');
  const { subject, text } = noticeText([
    { custodianId: 'bank-a', kind: 'Holdings', dueDay: '2026-11-19', deadline, status: 'missing', arrivedAt: undefined, messageId: undefined },
    { custodianId: 'bank-b', kind: 'Transactions', dueDay: '2026-11-19', deadline, status: 'late', arrivedAt: new Date('2026-11-19T08:00:00Z'), messageId: 'M1' },
  ], new Date('2026-11-19T07:31:00Z'));
  assert.equal(subject, 'depot-gateway: custodian reports 1 missing, 1 late');
  // Every time in Stockholm time, as the heading says (CET in November: UTC+1).
  assert.match(text, /^Custodian Holdings and Transactions are due at 08:30 Stockholm time each banking day.\nCheck made at 2026-11-19 08:31:00. All times are Stockholm time.\n/);
  assert.match(text, /Missing \(not received by the deadline\):\n {2}2026-11-19 {2}bank-a +Holdings +due 2026-11-19 08:30:00\n/);
  assert.match(text, /Late \(received after the deadline\):\n {2}2026-11-19 {2}bank-b +Transactions +due 2026-11-19 08:30:00 {2}arrived 2026-11-19 09:00:00 {2}message M1/);
  assert.doesNotMatch(text, /\d{2}:\d{2}:\d{2}(\.\d+)?Z/, 'no UTC time anywhere');
});
