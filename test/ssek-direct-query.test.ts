/**
 * The direct query over SSEK, on the embedded database and on PostgreSQL: an advisor
 * firm set up as an SSEK counterparty sends a signed DirectQuery and is answered in the
 * SOAP body with the customer's EngagementResponse (valid against its schema), recorded
 * in the record of direct queries (client ssek:<counterparty>, as XML) and never in the
 * message store; a customer the firm holds no power on, and a sender that is no advisor
 * firm, get the same RESOURCE_NOT_FOUND fault as an unknown customer; a malformed
 * CustomerId its own fault. Twenty queries at once are twenty records.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { SchemaRegistry } from '../src/messages/schema-registry.ts';
import { makeTestCertificates, type TestCertificates } from './support/certificates.ts';
import { envelope, signEnvelope } from './support/ssek-envelopes.ts';
import { startTestGateway, testSettings, type TestGateway, type TestGatewayOptions } from './support/harness.ts';
import { PERSONS } from './support/documents.ts';

const ENGINES: ReadonlyArray<readonly [string, TestGatewayOptions]> = [['the embedded database', { embedded: true }], ['PostgreSQL', {}]];
const FIRM = '5565555553';
const EMPLOYER = '5561234567';
const schemas = SchemaRegistry.load(join(PROJECT_ROOT, 'schemas'));
const query = (customerId: string) => `<DirectQuery xmlns="urn:se:depot-gateway:v1"><CustomerId>${customerId}</CustomerId></DirectQuery>`;
const bodyOf = (soap: string) => /<soap:Body>\s*([\s\S]*?)\s*<\/soap:Body>/.exec(soap)?.[1] ?? '';

describe.each(ENGINES)('the direct query over SSEK on %s', (_engine, engine) => {
  let gateway: TestGateway;
  let certificates: TestCertificates;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    certificates = await makeTestCertificates();
    const firm = await certificates.signing('firm-signing');
    const employer = await certificates.signing('employer-signing');
    keys.firm = await readFile(firm.key, 'utf8');
    keys.employer = await readFile(employer.key, 'utf8');
    const signers: Record<string, string> = { 'demo-advisor-firm': firm.cert, 'demo-employer': employer.cert };
    gateway = await startTestGateway({
      ...engine, roles: ['api'], inline: true,
      settings: {
        counterparties: (testSettings('unused').counterparties as { id: string }[])
          .map((c) => (signers[c.id] ? { ...c, ssek: { signingCertificatePath: signers[c.id] } } : c)),
      },
    });
    await gateway.deps.db.query(`INSERT INTO powers_of_attorney (holder_organisation_number, customer_id, kind, valid_from, valid_to, created_at, created_by)
      VALUES ($1, $2, 'intermediation', '2026-01-01', NULL, now(), 'test')`, [FIRM, PERSONS.anna]);
  }, 120_000);
  afterAll(async () => {
    await gateway?.destroy();
    await certificates?.remove();
  });

  const send = (customerId: string, from: 'firm' | 'employer' = 'firm') => gateway.http!.inject({
    method: 'POST', url: '/ssek', headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '"DirectQuery"' },
    payload: signEnvelope(envelope(query(customerId), { sender: from === 'firm' ? FIRM : EMPLOYER }), { key: keys[from]! }),
  });

  test("answered in the SOAP body with the customer's EngagementResponse, recorded, not a message", async () => {
    const messagesBefore = (await gateway.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM messages')).rows[0]!.n;
    const answer = await send(PERSONS.anna);
    assert.equal(answer.statusCode, 200, answer.body);
    const document = bodyOf(answer.body);
    assert.match(document, /^<EngagementResponse xmlns="urn:se:depot-gateway:v1">/);
    assert.deepEqual(schemas.validate(document, 'EngagementResponse'), []);
    assert.match(document, new RegExp(`<CustomerId>${PERSONS.anna}</CustomerId>`));
    const insurances = (await gateway.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM insurances WHERE policyholder = $1 OR insured_pin = $1', [PERSONS.anna])).rows[0]!.n;
    assert.equal(document.match(/<InsuranceNumber>/g)?.length, insurances);
    const { rows } = await gateway.deps.db.query<{ client_id: string; firm_organisation_number: string; answered_as: string; power_kind: string; insurance_count: number }>(
      'SELECT client_id, firm_organisation_number, answered_as, power_kind, insurance_count FROM direct_queries WHERE customer_id = $1', [PERSONS.anna],
    );
    assert.deepEqual(rows, [{ client_id: 'ssek:demo-advisor-firm', firm_organisation_number: FIRM, answered_as: 'xml', power_kind: 'intermediation', insurance_count: insurances }]);
    assert.equal((await gateway.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM messages')).rows[0]!.n, messagesBefore, 'nothing in the message store');
  });

  test('no power on the customer, a sender that is no advisor firm: the fault an unknown customer gets; a malformed CustomerId its own', async () => {
    for (const [customerId, from, code] of [
      [PERSONS.bertil, 'firm', 'RESOURCE_NOT_FOUND'], ['199001011239', 'firm', 'RESOURCE_NOT_FOUND'], [PERSONS.anna, 'employer', 'RESOURCE_NOT_FOUND'],
      ['199001011230', 'firm', 'PERSONAL_IDENTITY_NUMBER_INVALID'], ['19700101-1233', 'firm', 'SSEK_ENVELOPE_INVALID'],
    ] as const) {
      const answer = await send(customerId, from);
      assert.equal(answer.statusCode, 500, `${customerId} from ${from}: ${answer.body}`);
      assert.match(answer.body, new RegExp(`<dg:ErrorCode [^>]*>${code}</dg:ErrorCode>`), `${customerId} from ${from}`);
      assert.doesNotMatch(answer.body, /EngagementResponse/);
    }
    const { rows } = await gateway.deps.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM direct_queries WHERE customer_id <> $1`, [PERSONS.anna]);
    assert.equal(rows[0]!.n, 0, 'nothing recorded for a refused query');
  });

  test('twenty queries at once: twenty answers, twenty records', async () => {
    const before = (await gateway.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM direct_queries')).rows[0]!.n;
    const answers = await Promise.all(Array.from({ length: 20 }, () => send(PERSONS.anna)));
    assert.deepEqual([...new Set(answers.map((a) => a.statusCode))], [200]);
    assert.equal((await gateway.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM direct_queries')).rows[0]!.n, before + 20);
  });
});
