import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import {
  annualNoticeText, annualReportStatuses, annualReportWindow, annualStatusOf, isAnnualHoldingsDate, latestClosedAccountYear, type AnnualReportArrival,
} from './annual-report-deadlines.ts';

// Worked by hand: 2026 is in summer time from 29 March, so 1 March 00:00 Stockholm is
// 2026-02-28T23:00Z (CET) and 1 May 00:00 Stockholm is 2026-04-30T22:00Z (CEST).

test('the window of account year 2025 is 1 March to the end of 30 April 2026, Stockholm time', () => {
  const window = annualReportWindow(2025);
  assert.equal(window.opens.toISOString(), '2026-02-28T23:00:00.000Z');
  assert.equal(window.closes.toISOString(), '2026-04-30T22:00:00.000Z');
  assert.throws(() => annualReportWindow(25), RangeError);
});

test('arrives 15 March → on time; arrives 2 May → late; none by the end of April → missing', () => {
  const afterwards = new Date('2026-06-01T00:00:00Z');
  assert.equal(annualStatusOf(2025, new Date('2026-03-15T09:00:00Z'), afterwards), 'on_time');
  assert.equal(annualStatusOf(2025, new Date('2026-05-02T09:00:00Z'), afterwards), 'late');
  assert.equal(annualStatusOf(2025, undefined, afterwards), 'missing');
});

test('the close itself is on time, a moment after it late; pending until then, missing after', () => {
  assert.equal(annualStatusOf(2025, new Date('2026-04-30T21:59:59Z'), new Date('2026-05-02T00:00:00Z')), 'on_time', '23:59:59 on 30 April');
  assert.equal(annualStatusOf(2025, new Date('2026-04-30T22:00:00Z'), new Date('2026-05-02T00:00:00Z')), 'on_time', 'midnight exactly');
  assert.equal(annualStatusOf(2025, new Date('2026-04-30T22:00:01Z'), new Date('2026-05-02T00:00:00Z')), 'late');
  assert.equal(annualStatusOf(2025, undefined, new Date('2026-04-30T22:00:00Z')), 'pending');
  assert.equal(annualStatusOf(2025, undefined, new Date('2026-04-30T22:00:01Z')), 'missing');
  assert.equal(annualStatusOf(2025, new Date('2026-01-20T10:00:00Z'), new Date('2026-01-20T10:00:00Z')), 'on_time', 'before 1 March is early, not late');
});

test('a second copy never changes on time to late; a custodian known only from an arrival is listed too', () => {
  const arrival = (custodianId: string, year: number, at: string, messageId: string): AnnualReportArrival =>
    ({ custodianId, kind: 'CostAndCharges', year, arrivedAt: new Date(at), messageId });
  const statuses = annualReportStatuses({
    custodians: ['bank-b', 'bank-a'],
    year: 2025,
    arrivals: [
      arrival('bank-a', 2025, '2026-05-10T08:00:00Z', 'A-CORRECTION'),
      arrival('bank-a', 2025, '2026-03-15T08:00:00Z', 'A-FIRST'),
      arrival('bank-c', 2025, '2026-05-02T08:00:00Z', 'C-LATE'),
      arrival('bank-b', 2024, '2025-03-15T08:00:00Z', 'B-OTHER-YEAR'),
    ],
    now: new Date('2026-06-01T00:00:00Z'),
  });
  assert.deepEqual(statuses.map((s) => `${s.custodianId} ${s.kind} ${s.year} ${s.status} ${s.messageId ?? '-'}`), [
    'bank-a CostAndCharges 2025 on_time A-FIRST',
    'bank-b CostAndCharges 2025 missing -',
    'bank-c CostAndCharges 2025 late C-LATE',
  ]);
  assert.ok(statuses.every((s) => s.deadline.toISOString() === '2026-04-30T22:00:00.000Z'));
});

test('the latest closed account year turns over when April ends in Stockholm', () => {
  assert.equal(latestClosedAccountYear(new Date('2026-04-30T22:00:00Z')), 2024, 'the close itself: 2025 still open');
  assert.equal(latestClosedAccountYear(new Date('2026-04-30T22:00:01Z')), 2025);
  assert.equal(latestClosedAccountYear(new Date('2026-12-31T23:30:00Z')), 2025, 'already 1 January 2027 in Stockholm');
  assert.equal(latestClosedAccountYear(new Date('2027-03-01T00:00:00Z')), 2025);
});

test('the notice lists the missing and the late, and says where to look', () => {
  const { subject, text } = annualNoticeText([
    { custodianId: 'bank-b', kind: 'CostAndCharges', year: 2025, deadline: annualReportWindow(2025).closes, status: 'missing', arrivedAt: undefined, messageId: undefined },
    { custodianId: 'bank-c', kind: 'CostAndCharges', year: 2025, deadline: annualReportWindow(2025).closes, status: 'late', arrivedAt: new Date('2026-05-02T08:00:00Z'), messageId: 'C-LATE' },
  ], new Date('2026-05-02T09:00:00Z'));
  assert.equal(subject, 'depot-gateway: annual custodian reports 1 missing, 1 late');
  // Every time in Stockholm time (CEST in May: UTC+2); the deadline as the day it ends.
  assert.match(text, /Check made at 2026-05-02 11:00:00. All times are Stockholm time.\n/);
  assert.match(text, /Missing \(not received by the end of April\):\n {2}2025 {2}bank-b +CostAndCharges +due by the end of 2026-04-30\n/);
  assert.match(text, /Late \(received after the end of April\):\n {2}2025 {2}bank-c +CostAndCharges +due by the end of 2026-04-30 {2}arrived 2026-05-02 10:00:00 {2}message C-LATE/);
  assert.doesNotMatch(text, /\d{2}:\d{2}:\d{2}(\.\d+)?Z/, 'no UTC time anywhere');
  assert.match(text, /depot-gateway reports --annual --late/);
});

test('a Holdings as of 31 December is the annual one; any other date is daily', () => {
  assert.equal(isAnnualHoldingsDate('2025-12-31'), true);
  assert.equal(isAnnualHoldingsDate('2025-12-30'), false, 'the last banking day of 2025');
  assert.equal(isAnnualHoldingsDate('2026-01-02'), false);
});
