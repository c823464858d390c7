/**
 * The register of powers of attorney through the staff API, on real PostgreSQL: grant,
 * list, revoke, every change audited under the staff user, and the access policy's
 * decision following the register at once.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from './support/harness.ts';
import { customerAccessFacts } from '../src/ledger/advice/powers-of-attorney.repository.ts';
import { decideAccess, type ApiCaller } from '../src/core/access.policy.ts';

const staff = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };
const otherFirm: ApiCaller = { kind: 'advisor-firm', clientId: 'other', organisationNumber: '5567777775' };
const custodian: ApiCaller = { kind: 'custodian', clientId: 'c', custodianId: 'demo-custodian' };
const BERTIL = '198002021239';

describe('powers of attorney', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ roles: ['api'] });
  });
  afterAll(() => gateway.destroy());
  const call = (method: 'GET' | 'POST', url: string, payload?: object) => gateway.http!.inject({ method, url, headers: staff, ...(payload ? { payload } : {}) });
  const decide = async (caller: ApiCaller, customer: string) => decideAccess(caller, { kind: 'customer', ...(await customerAccessFacts(gateway.deps.db, customer)) }, '2026-11-25').allowed;

  test('staff grant and revoke; the policy follows the register; every change is audited', async () => {
    assert.equal(await decide(otherFirm, BERTIL), false, 'no power of attorney yet');
    assert.equal((await gateway.http!.inject({ method: 'POST', url: '/api/powers-of-attorney', payload: {} })).statusCode, 401, 'staff only');

    const granted = await call('POST', '/api/powers-of-attorney', { holderOrganisationNumber: '5567777775', customerId: BERTIL, kind: 'information', validFrom: '2026-11-01', validTo: '2027-10-31' });
    assert.equal(granted.statusCode, 201, granted.body);
    const power = granted.json() as { id: string; createdBy: string; revokedAt: null };
    assert.equal(granted.headers.location, `/api/powers-of-attorney/${power.id}`);
    assert.equal(power.createdBy, 'staff:staff');
    assert.equal(await decide(otherFirm, BERTIL), true, 'valid today');

    const listed = (await call('GET', `/api/powers-of-attorney?customer=${BERTIL}`)).json() as { id: string }[];
    assert.deepEqual(listed.map((p) => p.id), [power.id]);

    const revoked = await call('POST', `/api/powers-of-attorney/${power.id}/revoke`);
    assert.equal(revoked.statusCode, 200);
    assert.equal(revoked.json().revokedBy, 'staff:staff');
    assert.equal(await decide(otherFirm, BERTIL), false, 'revoked');
    assert.equal((await call('POST', `/api/powers-of-attorney/${power.id}/revoke`)).statusCode, 404, 'already revoked');

    const { rows } = await gateway.deps.db.query<{ change: string; changed_by: string }>('SELECT change, changed_by FROM power_of_attorney_changes WHERE power_of_attorney_id = $1 ORDER BY id', [power.id]);
    assert.deepEqual(rows.map((r) => [r.change, r.changed_by]), [['granted', 'staff:staff'], ['revoked', 'staff:staff']]);
  });

  test('a grant with bad values is refused with every problem named, and nothing is saved', async () => {
    const before = (await call('GET', '/api/powers-of-attorney')).json() as unknown[];
    const refused = await call('POST', '/api/powers-of-attorney', { holderOrganisationNumber: '5567777770', customerId: '198002021230', kind: 'everything', validFrom: '2026-13-01' });
    assert.equal(refused.statusCode, 400);
    const message = refused.json().message as string;
    for (const field of ['holderOrganisationNumber', 'customerId', 'kind', 'validFrom']) assert.match(message, new RegExp(field));
    const unknownFirm = await call('POST', '/api/powers-of-attorney', { holderOrganisationNumber: '5591111116', customerId: BERTIL, kind: 'information', validFrom: '2026-11-01' });
    assert.equal(unknownFirm.statusCode, 400);
    assert.match(unknownFirm.json().message, /not a registered advisor firm/);
    assert.equal(((await call('GET', '/api/powers-of-attorney')).json() as unknown[]).length, before.length);
  });

  test("a custodian sees a customer through the custody accounts of the customer's insurances, held or on their life", async () => {
    assert.equal(await decide(custodian, '5561234567'), true, 'the demo employer holds insurances at the demo custodian');
    assert.equal(await decide(custodian, BERTIL), true, "Bertil is insured by the employer's insurance at the demo custodian: he registers his payout account through it");
    const otherCustodian: ApiCaller = { kind: 'custodian', clientId: 'o', custodianId: 'other-custodian' };
    assert.equal(await decide(otherCustodian, BERTIL), false, 'a custodian holding none of his insurances does not');
  });
});
