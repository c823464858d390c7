import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { companySigningOf, inForceOn, isFullySigned } from './company-signatories.rules.ts';

const entry = (personalNumber: string, validFrom: string, validTo: string | null, revokedAt: string | null = null) => ({ personalNumber, validFrom, validTo, revokedAt });

test('in force: from and to inclusive, not revoked', () => {
  const register = [entry('1', '2026-01-01', null), entry('2', '2026-01-01', '2026-11-26'), entry('3', '2026-11-28', null), entry('4', '2026-01-01', '2026-11-27'), entry('5', '2026-01-01', null, '2026-11-01T10:00:00Z')];
  assert.deepEqual(inForceOn(register, '2026-11-27').map((s) => s.personalNumber), ['1', '4']);
});

test("an organisation's sign case: its signatories in force and the insured, or why there is none", () => {
  const made = companySigningOf({ organisationNumber: '5561234567', insured: 'I', inForce: [{ personalNumber: 'A' }, { personalNumber: 'B' }], required: 2 });
  assert.deepEqual(made, { ok: true, required: 2, signatories: [{ role: 'company-signatory', personalNumber: 'A' }, { role: 'company-signatory', personalNumber: 'B' }, { role: 'insured', personalNumber: 'I' }] });
  const none = companySigningOf({ organisationNumber: '5561234567', insured: 'I', inForce: [], required: 1 });
  assert.match(none.ok ? '' : none.message, /no company signatories in force: register them/);
  const noRule = companySigningOf({ organisationNumber: '5561234567', insured: 'I', inForce: [{ personalNumber: 'A' }], required: undefined });
  assert.match(noRule.ok ? '' : noRule.message, /no signing rule/);
  const tooFew = companySigningOf({ organisationNumber: '5561234567', insured: 'I', inForce: [{ personalNumber: 'A' }], required: 2 });
  assert.match(tooFew.ok ? '' : tooFew.message, /2 company signatories of 5561234567 must sign, but only 1 are in force/);
});

test("an employer's plan: its signatories in force alone, no insured", () => {
  const made = companySigningOf({ organisationNumber: '5569000127', inForce: [{ personalNumber: 'A' }], required: 1, signsFor: 'employer' });
  assert.deepEqual(made, { ok: true, required: 1, signatories: [{ role: 'company-signatory', personalNumber: 'A' }] });
  const none = companySigningOf({ organisationNumber: '5569000127', inForce: [], required: undefined, signsFor: 'employer' });
  assert.match(none.ok ? '' : none.message, /^The employer 5569000127 is an organisation with no company signatories in force/);
});

test('fully signed: every personal signatory, and the required count of company signatories', () => {
  const signed = (role: 'company-signatory' | 'insured' | 'policyholder', at: string | null) => ({ role, signedAt: at });
  assert.equal(isFullySigned([signed('company-signatory', 'x'), signed('company-signatory', null), signed('company-signatory', null), signed('insured', 'x')], 2), false);
  assert.equal(isFullySigned([signed('company-signatory', 'x'), signed('company-signatory', 'x'), signed('company-signatory', null), signed('insured', 'x')], 2), true);
  assert.equal(isFullySigned([signed('company-signatory', 'x'), signed('company-signatory', 'x'), signed('insured', null)], 2), false);
  assert.equal(isFullySigned([signed('policyholder', 'x'), signed('insured', null)], null), false);
  assert.equal(isFullySigned([signed('policyholder', 'x')], null), true);
});
