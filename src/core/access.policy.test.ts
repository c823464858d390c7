import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { decideAccess, reachesInsurance, type ApiCaller, type PowerOfAttorney } from './access.policy.ts';

const firm: ApiCaller = { kind: 'advisor-firm', clientId: 'firm-a', organisationNumber: '5569999999' };
const otherFirm: ApiCaller = { kind: 'advisor-firm', clientId: 'firm-b', organisationNumber: '5568888888' };
const custodian: ApiCaller = { kind: 'custodian', clientId: 'cust-a', custodianId: 'demo-custodian' };
const otherCustodian: ApiCaller = { kind: 'custodian', clientId: 'cust-b', custodianId: 'other-custodian' };
const today = '2026-11-25';

const power = (overrides: Partial<PowerOfAttorney> = {}): PowerOfAttorney => ({
  holderOrganisationNumber: '5569999999', kind: 'information', validFrom: '2026-01-01', validTo: null, revoked: false, ...overrides,
});
const customer = (powers: PowerOfAttorney[], custodianIds: string[] = ['demo-custodian']) => ({ kind: 'customer' as const, powers, custodianIds });

test('the catalogue is open to every client', () => {
  for (const caller of [firm, custodian]) assert.deepEqual(decideAccess(caller, { kind: 'catalogue' }, today), { allowed: true, scope: 'all' });
});

test("an advisor's record only to the firm the advisor acts for", () => {
  const advisor = { kind: 'advisor' as const, organisationNumber: '5569999999' };
  assert.equal(decideAccess(firm, advisor, today).allowed, true);
  assert.equal(decideAccess(otherFirm, advisor, today).allowed, false);
  assert.equal(decideAccess(custodian, advisor, today).allowed, false);
});

test("a customer's data to a firm only while it holds a power of attorney on the customer", () => {
  assert.deepEqual(decideAccess(firm, customer([power()]), today), { allowed: true, scope: 'all' });
  assert.equal(decideAccess(firm, customer([]), today).allowed, false, 'no power of attorney');
  assert.equal(decideAccess(otherFirm, customer([power()]), today).allowed, false, "another firm's power of attorney");
  assert.equal(decideAccess(firm, customer([power({ validTo: '2026-11-24' })]), today).allowed, false, 'expired yesterday');
  assert.equal(decideAccess(firm, customer([power({ validTo: today })]), today).allowed, true, 'its last valid day');
  assert.equal(decideAccess(firm, customer([power({ validFrom: '2026-11-26' })]), today).allowed, false, 'not begun');
  assert.equal(decideAccess(firm, customer([power({ revoked: true })]), today).allowed, false, 'revoked');
  assert.equal(decideAccess(firm, customer([power({ revoked: true }), power({ kind: 'intermediation' })]), today).allowed, true, 'another valid one');
});

test('a custodian sees a customer only where it holds a custody account, and then only what is held there', () => {
  assert.deepEqual(decideAccess(custodian, customer([]), today), { allowed: true, scope: 'custody', custodianId: 'demo-custodian' });
  assert.equal(decideAccess(otherCustodian, customer([]), today).allowed, false);
  assert.equal(decideAccess(custodian, customer([power()], []), today).allowed, false, "a firm's power of attorney gives a custodian nothing");
});

test('applications are made by advisor firms only', () => {
  assert.deepEqual(decideAccess(firm, { kind: 'new-application' }, today), { allowed: true, scope: 'all' });
  assert.equal(decideAccess(custodian, { kind: 'new-application' }, today).allowed, false);
});

test('an application only to the firm that made it', () => {
  const application = { kind: 'application' as const, firmOrganisationNumber: '5569999999' };
  assert.equal(decideAccess(firm, application, today).allowed, true);
  assert.equal(decideAccess(otherFirm, application, today).allowed, false);
  assert.equal(decideAccess(custodian, application, today).allowed, false);
});

test('an information power reads; only an intermediation power acts', () => {
  const information = customer([power({ kind: 'information' })]);
  const intermediation = customer([power({ kind: 'intermediation' })]);
  assert.equal(decideAccess(firm, information, today, 'read').allowed, true);
  assert.equal(decideAccess(firm, information, today, 'act').allowed, false, 'information only: no acting');
  assert.equal(decideAccess(firm, information, today).allowed, true, 'reading is the default purpose');
  assert.equal(decideAccess(firm, intermediation, today, 'read').allowed, true);
  assert.equal(decideAccess(firm, intermediation, today, 'act').allowed, true);
  assert.equal(decideAccess(firm, customer([power({ kind: 'intermediation', revoked: true }), power({ kind: 'information' })]), today, 'act').allowed, false, 'the intermediation power is revoked');
  assert.equal(decideAccess(firm, customer([power({ kind: 'intermediation', validTo: '2026-11-24' })]), today, 'act').allowed, false, 'expired');
  assert.equal(decideAccess(otherFirm, intermediation, today, 'act').allowed, false, "another firm's power");
  assert.deepEqual(decideAccess(custodian, customer([]), today, 'act'), { allowed: true, scope: 'custody', custodianId: 'demo-custodian' }, 'a custodian acts on what it holds');
});

test('a decision reaches an insurance at a custodian only within its scope', () => {
  assert.equal(reachesInsurance(decideAccess(firm, customer([power()]), today), 'any-custodian'), true);
  assert.equal(reachesInsurance(decideAccess(custodian, customer([], ['demo-custodian', 'other-custodian']), today), 'demo-custodian'), true);
  assert.equal(reachesInsurance(decideAccess(custodian, customer([], ['demo-custodian', 'other-custodian']), today), 'other-custodian'), false);
  assert.equal(reachesInsurance(decideAccess(firm, customer([]), today), 'demo-custodian'), false);
});
