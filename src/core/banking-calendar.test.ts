import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { stockholmDate } from './calendar-date.ts';
import {
  bankingDayOnOrAfter,
  bankingDayOnOrBefore,
  bankingDaysBetween,
  debitRunDate,
  debitRunsOf,
  isBankingDay,
  isLate,
  lastBankingDayOfMonth,
  nextBankingDay,
  payoutDeadline,
  previousBankingDay,
  reportDeadline,
  reportingDayFor,
  sellOrderDeadline,
} from './banking-calendar.ts';

// Expected dates below were worked out from a printed calendar (weekdays checked
// independently of this module), never by running the code under test.

// The days banks close that fall on a weekday: 1 Jan, 6 Jan, Good Friday, Easter
// Monday, 1 May, Ascension, 6 Jun, Midsummer Eve, 24/25/26/31 Dec, where not a weekend.
const CLOSED_WEEKDAYS: Record<number, string[]> = {
  2025: ['01-01', '01-06', '04-18', '04-21', '05-01', '05-29', '06-06', '06-20', '12-24', '12-25', '12-26', '12-31'],
  2026: ['01-01', '01-06', '04-03', '04-06', '05-01', '05-14', '06-19', '12-24', '12-25', '12-31'],
  2027: ['01-01', '01-06', '03-26', '03-29', '05-06', '06-25', '12-24', '12-31'],
};

test('every Swedish public and bank holiday on a weekday, 2025–2027, is not a banking day', () => {
  for (const [year, days] of Object.entries(CLOSED_WEEKDAYS)) {
    for (const day of days) assert.equal(isBankingDay(`${year}-${day}`), false, `${year}-${day}`);
  }
});

test('a year has exactly its weekdays less its weekday holidays: 261 − 12, 261 − 10, 261 − 8', () => {
  // Catches a holiday too many (say an 'optional' half day) as well as one too few.
  assert.equal(bankingDaysBetween('2025-01-01', '2025-12-31').length, 249);
  assert.equal(bankingDaysBetween('2026-01-01', '2026-12-31').length, 251);
  assert.equal(bankingDaysBetween('2027-01-01', '2027-12-31').length, 253);
});

test('eves that are only half days or no holiday at all are banking days', () => {
  for (const day of ['2026-01-05', '2026-04-02', '2026-04-30', '2026-06-18', '2026-10-30', '2026-12-23', '2025-10-31', '2027-04-30']) {
    assert.equal(isBankingDay(day), true, day);
  }
});

test('a holiday on a weekend is just a weekend: no substitute day', () => {
  assert.equal(isBankingDay('2026-06-05'), true, 'Friday before National Day 2026 (a Saturday)');
  assert.equal(isBankingDay('2026-06-08'), true, 'Monday after it');
  assert.equal(isBankingDay('2027-06-07'), true, 'Monday after National Day 2027 (a Sunday)');
  assert.equal(isBankingDay('2027-12-27'), true, 'Monday after Christmas 2027 (Saturday and Sunday)');
  assert.equal(isBankingDay('2027-05-03'), true, 'Monday after 1 May 2027 (a Saturday)');
  assert.equal(isBankingDay('2026-06-06'), false, 'a Saturday stays closed');
});

test('around Easter the next and previous banking days skip Good Friday to Easter Monday', () => {
  assert.equal(nextBankingDay('2025-04-17'), '2025-04-22');
  assert.equal(previousBankingDay('2025-04-22'), '2025-04-17');
  assert.equal(nextBankingDay('2026-04-02'), '2026-04-07');
  assert.equal(previousBankingDay('2026-04-07'), '2026-04-02');
  assert.equal(nextBankingDay('2027-03-25'), '2027-03-30');
  assert.equal(bankingDayOnOrAfter('2027-03-26'), '2027-03-30');
  assert.equal(bankingDayOnOrBefore('2027-03-29'), '2027-03-25');
});

test('Ascension (Easter + 39) and Midsummer Eve are skipped', () => {
  assert.equal(nextBankingDay('2025-05-28'), '2025-05-30');
  assert.equal(nextBankingDay('2026-05-13'), '2026-05-15');
  assert.equal(previousBankingDay('2027-05-07'), '2027-05-05');
  assert.equal(nextBankingDay('2025-06-19'), '2025-06-23');
  assert.equal(nextBankingDay('2026-06-18'), '2026-06-22');
  assert.equal(bankingDayOnOrBefore('2027-06-27'), '2027-06-24');
});

test('Christmas and New Year: banking days across the turn of the year', () => {
  assert.deepEqual(bankingDaysBetween('2025-12-20', '2026-01-08'), [
    '2025-12-22', '2025-12-23', '2025-12-29', '2025-12-30', '2026-01-02', '2026-01-05', '2026-01-07', '2026-01-08',
  ]);
  assert.equal(nextBankingDay('2026-12-23'), '2026-12-28');
  assert.equal(nextBankingDay('2026-12-30'), '2027-01-04');
  assert.equal(previousBankingDay('2027-01-04'), '2026-12-30');
  assert.equal(nextBankingDay('2027-12-23'), '2027-12-27');
  assert.equal(nextBankingDay('2027-12-30'), '2028-01-03');
});

test('on-or-after and on-or-before keep a banking day; between includes both ends', () => {
  assert.equal(bankingDayOnOrAfter('2026-03-30'), '2026-03-30');
  assert.equal(bankingDayOnOrBefore('2026-03-30'), '2026-03-30');
  assert.equal(bankingDayOnOrAfter('2026-03-28'), '2026-03-30');
  assert.equal(bankingDayOnOrBefore('2026-03-29'), '2026-03-27');
  assert.deepEqual(bankingDaysBetween('2026-03-27', '2026-03-30'), ['2026-03-27', '2026-03-30']);
  assert.deepEqual(bankingDaysBetween('2026-03-28', '2026-03-29'), []);
  assert.deepEqual(bankingDaysBetween('2026-03-30', '2026-03-27'), []);
});

test('the 08:30 deadline follows Stockholm summer time: 07:30Z in CET, 06:30Z in CEST', () => {
  assert.equal(reportDeadline('2026-03-27').toISOString(), '2026-03-27T07:30:00.000Z', 'Friday before the spring change');
  assert.equal(reportDeadline('2026-03-30').toISOString(), '2026-03-30T06:30:00.000Z', 'Monday after it');
  assert.equal(reportDeadline('2026-10-23').toISOString(), '2026-10-23T06:30:00.000Z', 'Friday before the autumn change');
  assert.equal(reportDeadline('2026-10-26').toISOString(), '2026-10-26T07:30:00.000Z', 'Monday after it');
  assert.equal(reportDeadline('2026-03-30', '13:00').toISOString(), '2026-03-30T11:00:00.000Z');
});

test('a report is late only after the deadline; exactly at it is on time', () => {
  assert.equal(isLate(new Date('2026-03-27T07:29:59.999Z'), '2026-03-27'), false);
  assert.equal(isLate(new Date('2026-03-27T07:30:00.000Z'), '2026-03-27'), false);
  assert.equal(isLate(new Date('2026-03-27T07:30:00.001Z'), '2026-03-27'), true);
  assert.equal(isLate(new Date('2026-03-30T06:29:59.999Z'), '2026-03-30'), false);
  assert.equal(isLate(new Date('2026-03-30T06:30:00.001Z'), '2026-03-30'), true);
  // 07:00Z is 08:00 in winter but 09:00 in summer: a fixed offset gets one of these wrong.
  assert.equal(isLate(new Date('2026-03-27T07:00:00Z'), '2026-03-27'), false);
  assert.equal(isLate(new Date('2026-03-30T07:00:00Z'), '2026-03-30'), true);
  assert.equal(isLate(new Date('2026-10-23T06:45:00Z'), '2026-10-23'), true);
  assert.equal(isLate(new Date('2026-10-26T06:45:00Z'), '2026-10-26'), false);
});

test('a report counts for its Stockholm banking day, late or not; on a closed day, for the next banking day', () => {
  assert.equal(reportingDayFor(new Date('2026-03-30T06:00:00Z')), '2026-03-30', '08:00 Monday, on time');
  assert.equal(reportingDayFor(new Date('2026-03-30T08:00:00Z')), '2026-03-30', '10:00 Monday, late, still Monday');
  assert.equal(reportingDayFor(new Date('2026-03-28T10:00:00Z')), '2026-03-30', 'Saturday → Monday');
  assert.equal(reportingDayFor(new Date('2026-04-03T07:00:00Z')), '2026-04-07', 'Good Friday → Tuesday after Easter Monday');
  assert.equal(reportingDayFor(new Date('2026-12-23T22:30:00Z')), '2026-12-23', '23:30 local on the 23rd');
  assert.equal(reportingDayFor(new Date('2026-12-23T23:30:00Z')), '2026-12-28', '00:30 local on Christmas Eve');
  assert.equal(isLate(new Date('2026-03-28T10:00:00Z'), reportingDayFor(new Date('2026-03-28T10:00:00Z'))), false);
});

test('debit runs 2025–2027: the last banking day of February, April, July and October', () => {
  assert.equal(debitRunDate(2024, 4), '2025-02-28');
  assert.equal(debitRunDate(2025, 1), '2025-04-30');
  assert.equal(debitRunDate(2025, 2), '2025-07-31');
  assert.equal(debitRunDate(2025, 3), '2025-10-31', "All Saints' Eve is a banking day");
  assert.equal(debitRunDate(2025, 4), '2026-02-27', '28 Feb 2026 is a Saturday');
  assert.equal(debitRunDate(2026, 3), '2026-10-30', '31 Oct 2026 is a Saturday');
  assert.equal(debitRunDate(2027, 2), '2027-07-30', '31 Jul 2027 is a Saturday');
  assert.equal(debitRunDate(2027, 3), '2027-10-29', '31 Oct 2027 is a Sunday');
  assert.equal(debitRunDate(2027, 4), '2028-02-29', 'leap day, a Tuesday');
  assert.equal(lastBankingDayOfMonth(2025, 12), '2025-12-30', 'New Year\'s Eve is closed');
});

test('debitRunsOf lists a year\'s four runs with what they cover; only February takes the opening-value yield tax', () => {
  assert.deepEqual(debitRunsOf(2026), [
    { runDate: '2026-02-27', coveredYear: 2025, coveredQuarter: 4, yieldTaxOnOpeningValue: true },
    { runDate: '2026-04-30', coveredYear: 2026, coveredQuarter: 1, yieldTaxOnOpeningValue: false },
    { runDate: '2026-07-31', coveredYear: 2026, coveredQuarter: 2, yieldTaxOnOpeningValue: false },
    { runDate: '2026-10-30', coveredYear: 2026, coveredQuarter: 3, yieldTaxOnOpeningValue: false },
  ]);
  assert.deepEqual(debitRunsOf(2027).map((run) => run.runDate), ['2027-02-26', '2027-04-30', '2027-07-30', '2027-10-29']);
  assert.deepEqual(debitRunsOf(2025).map((run) => run.runDate), ['2025-02-28', '2025-04-30', '2025-07-31', '2025-10-31']);
});

test('sell orders are due on the 10th, moved earlier off weekends and holidays', () => {
  assert.equal(sellOrderDeadline(2026, 2), '2026-02-10', 'a Tuesday stays');
  assert.equal(sellOrderDeadline(2026, 1), '2026-01-09', '10 Jan 2026 is a Saturday');
  assert.equal(sellOrderDeadline(2025, 8), '2025-08-08', '10 Aug 2025 is a Sunday');
  assert.equal(sellOrderDeadline(2027, 4), '2027-04-09', '10 Apr 2027 is a Saturday');
  assert.equal(sellOrderDeadline(2020, 4), '2020-04-09', '10 Apr 2020 is Good Friday');
});

test('payouts are due on the 22nd, moved earlier off weekends and holidays', () => {
  assert.equal(payoutDeadline(2027, 12), '2027-12-22', 'a Wednesday stays');
  assert.equal(payoutDeadline(2026, 2), '2026-02-20', '22 Feb 2026 is a Sunday');
  assert.equal(payoutDeadline(2027, 5), '2027-05-21', '22 May 2027 is a Saturday');
  assert.equal(payoutDeadline(2025, 6), '2025-06-19', 'Sunday, and the Friday before is Midsummer Eve');
  assert.equal(payoutDeadline(2019, 4), '2019-04-18', 'Easter Monday, back over Easter to Maundy Thursday');
  assert.equal(payoutDeadline(2018, 6), '2018-06-21', 'Midsummer Eve on the 22nd');
});

test('malformed input and deadlines on closed days are refused', () => {
  assert.throws(() => isBankingDay('2026-02-30'), RangeError);
  assert.throws(() => isBankingDay('2026-2-3'), RangeError);
  assert.throws(() => nextBankingDay('not a date'), RangeError);
  assert.throws(() => reportDeadline('2026-04-03'), /not a banking day/);
  assert.throws(() => reportDeadline('2026-03-30', '8:30'), RangeError);
  assert.throws(() => sellOrderDeadline(2026, 13), RangeError);
  assert.throws(() => lastBankingDayOfMonth(2026.5, 1), RangeError);
});

test("today's Stockholm date turns at Stockholm's midnight, also when asked again and again in the same minute", () => {
  const asked: [string, string][] = [
    ['2026-03-28T22:59:59.999Z', '2026-03-28'], ['2026-03-28T23:00:00.000Z', '2026-03-29'], // CET
    ['2026-10-24T21:59:30.000Z', '2026-10-24'], ['2026-10-24T21:59:59.999Z', '2026-10-24'], ['2026-10-24T22:00:00.000Z', '2026-10-25'], // CEST
    ['2026-10-25T22:59:59.999Z', '2026-10-25'], ['2026-10-25T23:00:00.000Z', '2026-10-26'], // CET again
  ];
  for (const [instant, date] of asked) assert.equal(stockholmDate(new Date(instant)), date, instant);
});
