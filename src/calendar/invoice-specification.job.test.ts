import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { dueInvoiceMonths, recipientOf } from './invoice-specification.job.ts';

test('a month is due from its configured day in Stockholm, with the months before it up to the catch-up', () => {
  // 2026-11-05 00:30 in Stockholm is 2026-11-04 23:30 UTC: the 5th has come there.
  assert.deepEqual(dueInvoiceMonths(new Date('2026-11-04T23:30:00Z'), 5, 2), ['2026-10', '2026-11']);
  assert.deepEqual(dueInvoiceMonths(new Date('2026-11-04T22:30:00Z'), 5, 2), ['2026-09', '2026-10']);
  assert.deepEqual(dueInvoiceMonths(new Date('2027-01-28T12:00:00Z'), 28, 3), ['2026-11', '2026-12', '2027-01']);
  assert.deepEqual(dueInvoiceMonths(new Date('2027-01-01T12:00:00Z'), 1, 1), ['2027-01']);
});

test("the specification goes to the employer's counterparty, else to an administrator of the agreement", () => {
  const counterparties = [
    { id: 'admin', name: 'Admin AB', role: 'administrator', organisationNumber: '5590000013' },
    { id: 'custodian', name: 'Custodian AB', role: 'custodian', organisationNumber: '5561234567' },
    { id: 'employer', name: 'Employer AB', role: 'employer', organisationNumber: '5561234567' },
  ];
  const agreement = { agreementNumber: 'AGR-1', name: 'Plan', employerOrganisationNumber: '5561234567', administrators: ['5590000013'] };
  assert.equal(recipientOf(agreement, counterparties)?.id, 'employer');
  assert.equal(recipientOf({ ...agreement, employerOrganisationNumber: '5569999991' }, counterparties)?.id, 'admin');
  assert.equal(recipientOf({ ...agreement, employerOrganisationNumber: '5569999991', administrators: [] }, counterparties), undefined);
});
