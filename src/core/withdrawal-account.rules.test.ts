import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { validationDayOf, validationRunAt } from './withdrawal-account.rules.ts';
import { parseBankAccount } from './bank-account.ts';

// Weekdays and holidays checked against a printed calendar: 2026-11-25 is a Wednesday,
// 2026-11-27 a Friday, 2026-12-24/25 closed (Thursday, Friday), 2026-12-28 a Monday.

test('an account registered before 07:00 Stockholm is validated in that banking day\'s 13:00 run, later ones in the next banking day\'s', () => {
  assert.equal(validationDayOf(new Date('2026-11-25T05:55:00Z')), '2026-11-25', '06:55 CET');
  assert.equal(validationDayOf(new Date('2026-11-25T05:59:59Z')), '2026-11-25', '06:59:59 CET');
  assert.equal(validationDayOf(new Date('2026-11-25T06:00:00Z')), '2026-11-26', '07:00 CET is not before 07:00');
  assert.equal(validationDayOf(new Date('2026-11-27T12:00:00Z')), '2026-11-30', 'Friday afternoon: Monday');
  assert.equal(validationDayOf(new Date('2026-11-28T05:00:00Z')), '2026-11-30', 'Saturday morning: Monday');
  assert.equal(validationDayOf(new Date('2026-12-23T10:00:00Z')), '2026-12-28', 'after the cutoff on 23 December: over Christmas to Monday 28th');
  assert.equal(validationDayOf(new Date('2026-06-15T04:30:00Z')), '2026-06-15', '06:30 CEST (summer time)');
  assert.equal(validationDayOf(new Date('2026-06-15T05:00:00Z')), '2026-06-16', '07:00 CEST');
});

test('the validation run is at 13:00 Stockholm, CET or CEST as the day has it', () => {
  assert.equal(validationRunAt('2026-11-25').toISOString(), '2026-11-25T12:00:00.000Z');
  assert.equal(validationRunAt('2026-06-15').toISOString(), '2026-06-15T11:00:00.000Z');
});

test('bank accounts: valid ones read with their bank, each wrong one says what is wrong', () => {
  // Check digits worked by hand: SEB type 1, mod 11 over 5000 + 1234560 (weights 1,10,9,…): sum 176 = 16 × 11.
  assert.deepEqual(parseBankAccount('50001234560'), { ok: true, account: { clearingNumber: '5000', accountNumber: '1234560', bankName: 'SEB', digits: '50001234560' } });
  // Handelsbanken type 2, mod 11 over the account (9 digits); Swedbank 8xxx without its fifth clearing digit, mod 10 over 10 digits.
  assert.equal(parseBankAccount('6000123456789').ok, true);
  assert.deepEqual(parseBankAccount('83279931432489'), { ok: true, account: { clearingNumber: '8327', accountNumber: '9931432489', bankName: 'Swedbank', digits: '83279931432489' } });
  // A Swedbank account given without its leading zeros is the same account, padded.
  assert.deepEqual(parseBankAccount('8327123456782'), { ok: true, account: { clearingNumber: '8327', accountNumber: '0123456782', bankName: 'Swedbank', digits: '83270123456782' } });

  const problems: Record<string, RegExp> = {
    '5000-1234560': /not digits only/,
    '50001': /too short/,
    '99991234567': /clearing number 9999 belongs to no Swedish bank/,
    '5000123456': /SEB accounts \(clearing 5000\) have 7 digits after the clearing number; 123456 has 6/,
    '50001234567': /the check digit of SEB account 5000 1234567 is wrong \(mod 11 over clearing number and account number\)/,
    '6000123456788': /the check digit of Handelsbanken account 6000 123456788 is wrong \(mod 11 over the account number\)/,
    '83279931432488': /the check digit of Swedbank account 8327 9931432488 is wrong \(mod 10 over the account number\)/,
    '8327123456789012': /Swedbank accounts \(clearing 8327\) have 10–11 digits after the clearing number; 123456789012 has 12/,
  };
  for (const [given, expected] of Object.entries(problems)) {
    const reading = parseBankAccount(given);
    assert.equal(reading.ok, false, given);
    if (!reading.ok) assert.match(reading.problem, expected, given);
  }
});
