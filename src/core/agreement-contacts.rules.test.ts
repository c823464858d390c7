import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { checkCanAdd, checkCanRemove, checkValidTo, currentPeriod, type ContactPeriod } from './agreement-contacts.rules.ts';

const fia: ContactPeriod = { personalIdentityNumber: '198807141232', name: 'Fia Fransson', role: 'HrAdministrator', validFrom: '2020-01-01', validTo: null };
const fiaEarlier: ContactPeriod = { ...fia, validFrom: '2015-01-01', validTo: '2018-12-31' };
const fiaAsHandlerUntilYearEnd: ContactPeriod = { ...fia, role: 'CaseHandler', validFrom: '2021-01-01', validTo: '2026-12-31' };

test('the current period of a role is the one without an end date', () => {
  assert.equal(currentPeriod([fiaEarlier, fia], 'HrAdministrator'), fia);
  assert.equal(currentPeriod([fiaEarlier, fia, fiaAsHandlerUntilYearEnd], 'CaseHandler'), undefined);
});

test('a person may be added to a role they do not hold, or after their last day in it', () => {
  assert.equal(checkCanAdd([], 'HrAdministrator', '2026-12-01', 'AGR-1'), undefined);
  assert.equal(checkCanAdd([fia], 'CaseHandler', '2026-12-01', 'AGR-1'), undefined, 'another role');
  assert.equal(checkCanAdd([fiaAsHandlerUntilYearEnd], 'CaseHandler', '2027-01-01', 'AGR-1'), undefined, 'the day after the last day');
});

test('a person holding the role until further notice cannot be added again', () => {
  const rejection = checkCanAdd([fiaEarlier, fia], 'HrAdministrator', '2026-12-01', 'AGR-1');
  assert.equal(rejection?.code, 'ADMINISTRATOR_ALREADY_REGISTERED');
  assert.match(rejection.text, /198807141232 \(Fia Fransson\) is already HrAdministrator of agreement AGR-1 from 2020-01-01 until further notice/);
});

test('a period ending on or after the new ValidFrom overlaps it; the text gives the first free day', () => {
  const rejection = checkCanAdd([fiaAsHandlerUntilYearEnd], 'CaseHandler', '2026-12-31', 'AGR-1');
  assert.equal(rejection?.code, 'ADMINISTRATOR_ALREADY_REGISTERED');
  assert.match(rejection.text, /from 2021-01-01 to 2026-12-31, which overlaps ValidFrom 2026-12-31; add the role from 2027-01-01 or later/);
});

test('only a current role can be removed; the text says why not', () => {
  assert.deepEqual(checkCanRemove([fiaEarlier, fia], { personalIdentityNumber: fia.personalIdentityNumber, role: 'HrAdministrator', agreementNumber: 'AGR-1' }), { current: fia });
  const otherRole = checkCanRemove([fia], { personalIdentityNumber: fia.personalIdentityNumber, role: 'CaseHandler', agreementNumber: 'AGR-1' });
  assert.ok('reject' in otherRole);
  assert.equal(otherRole.reject.code, 'ADMINISTRATOR_UNKNOWN');
  assert.match(otherRole.reject.text, /198807141232 is not a current CaseHandler of agreement AGR-1; their current role is HrAdministrator\./);
  const ending = checkCanRemove([fiaAsHandlerUntilYearEnd], { personalIdentityNumber: fia.personalIdentityNumber, role: 'CaseHandler', agreementNumber: 'AGR-1' });
  assert.ok('reject' in ending);
  assert.match(ending.reject.text, /their last day as CaseHandler is already set to 2026-12-31/);
  const stranger = checkCanRemove([], { personalIdentityNumber: '199506151233', role: 'CaseHandler', agreementNumber: 'AGR-1' });
  assert.ok('reject' in stranger);
  assert.equal(stranger.reject.text, '199506151233 is not a current CaseHandler of agreement AGR-1.');
});

test('ValidTo may be the day before the period began (a cancelled registration), not earlier', () => {
  assert.equal(checkValidTo(fia, '2026-12-31'), undefined);
  assert.equal(checkValidTo(fia, '2019-12-31'), undefined);
  const rejection = checkValidTo(fia, '2019-12-30');
  assert.equal(rejection?.code, 'EFFECTIVE_DATE_BEFORE_START');
  assert.match(rejection.text, /ValidTo 2019-12-30 is before 198807141232 \(Fia Fransson\) became HrAdministrator on 2020-01-01; the earliest ValidTo is 2019-12-31/);
});
