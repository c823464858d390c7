import { describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import type { ApiCaller } from './access.policy.ts';
import { directQueryPower, type RegisteredPower } from './direct-query.policy.ts';

const FIRM: ApiCaller = { kind: 'advisor-firm', clientId: 'firm', organisationNumber: '5565555553' };
const CUSTODIAN: ApiCaller = { kind: 'custodian', clientId: 'custodian', custodianId: 'demo-custodian' };
const TODAY = '2026-11-27';

const power = (id: string, kind: RegisteredPower['kind'], changes: Partial<RegisteredPower> = {}): RegisteredPower => ({
  id, holderOrganisationNumber: '5565555553', kind, validFrom: '2026-01-01', validTo: null, revoked: false, ...changes,
});

describe('directQueryPower', () => {
  test('a firm with a valid information or intermediation power is answered under it', () => {
    assert.equal(directQueryPower(FIRM, [power('1', 'information')], TODAY)?.id, '1');
    assert.equal(directQueryPower(FIRM, [power('2', 'intermediation')], TODAY)?.id, '2');
  });

  test('an intermediation power is named before an information power, then the earliest begun, then the lowest id', () => {
    assert.equal(directQueryPower(FIRM, [power('1', 'information'), power('2', 'intermediation')], TODAY)?.id, '2');
    assert.equal(directQueryPower(FIRM, [power('9', 'information', { validFrom: '2025-01-01' }), power('3', 'information')], TODAY)?.id, '9');
    assert.equal(directQueryPower(FIRM, [power('12', 'information'), power('11', 'information')], TODAY)?.id, '11');
  });

  test('expired, not yet begun, revoked and other firms\' powers do not count', () => {
    assert.equal(directQueryPower(FIRM, [power('1', 'intermediation', { validTo: '2026-11-26' })], TODAY), undefined);
    assert.equal(directQueryPower(FIRM, [power('1', 'intermediation', { validFrom: '2026-11-28' })], TODAY), undefined);
    assert.equal(directQueryPower(FIRM, [power('1', 'information', { revoked: true })], TODAY), undefined);
    assert.equal(directQueryPower(FIRM, [power('1', 'information', { holderOrganisationNumber: '5567777775' })], TODAY), undefined);
    assert.equal(directQueryPower(FIRM, [power('1', 'information', { validTo: TODAY })], TODAY)?.id, '1');
  });

  test('a custodian is never answered, whatever powers the customer has given', () => {
    assert.equal(directQueryPower(CUSTODIAN, [power('1', 'intermediation')], TODAY), undefined);
  });
});
