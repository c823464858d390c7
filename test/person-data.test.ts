/**
 * A subject-access export (GET /api/persons/{pin}/data, `depot-gateway person-data`), on
 * the embedded database and on PostgreSQL: a person's ledger rows, their engagement and
 * the documents that named them, without their documents' bytes or signing credentials;
 * each export recorded in the staff audit log, also twenty at once; a person the gateway
 * holds nothing on is PERSON_NOT_FOUND, a malformed number PERSONAL_IDENTITY_NUMBER_INVALID.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PersonDataExport } from '../src/http/staff/person-data.routes.ts';
import { startTestGateway, testSettings, waitFor, type TestGateway, type TestGatewayOptions } from './support/harness.ts';
import { runCliToEnd, writeConfigFile } from './support/processes.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';

const ENGINES: ReadonlyArray<readonly [string, TestGatewayOptions]> = [['the embedded database', { embedded: true }], ['PostgreSQL', {}]];
const STAFF = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };
/** A valid personnummer the demo ledger does not hold. */
const STRANGER = '199001011239';

describe.each(ENGINES)('person data on %s', (_engine, engine) => {
  let gateway: TestGateway;
  let messageId: string;

  beforeAll(async () => {
    gateway = await startTestGateway({ ...engine, roles: ['api', 'worker'] });
    const submitted = await gateway.http!.inject({
      method: 'POST', url: '/api/messages?from=demo-employer&name=person-data.xml', headers: { ...STAFF, 'content-type': 'application/xml' },
      payload: salaryAdjustment({ messageId: 'PERSON-DATA-1' }, [{ pin: PERSONS.anna, date: '2026-12-01', salary: '612000.00' }]),
    });
    messageId = (submitted.json() as { messageId: string }).messageId;
    await waitFor(async () => (await gateway.deps.db.query<{ status: string }>('SELECT status FROM messages WHERE id = $1', [messageId])).rows[0]?.status === 'applied', 'the document applied');
  });
  afterAll(async () => {
    await gateway?.destroy();
  });

  const exportOf = (pin: string) => gateway.http!.inject({ method: 'GET', url: `/api/persons/${pin}/data`, headers: STAFF });

  test("the export holds the person's rows, engagement and documents, not the documents' bytes; it is audited", async () => {
    const answer = await exportOf(PERSONS.anna);
    assert.equal(answer.statusCode, 200, answer.body);
    const data = answer.json() as PersonDataExport;
    assert.equal(data.personalNumber, PERSONS.anna);
    assert.equal(data.exportedBy, 'staff');
    assert.deepEqual(data.records.persons!.map((row) => row.personal_identity_number), [PERSONS.anna]);
    const ledgerInsurances = (await gateway.deps.db.query<{ insurance_number: string }>(
      'SELECT insurance_number FROM insurances WHERE policyholder = $1 OR insured_pin = $1 ORDER BY 1', [PERSONS.anna],
    )).rows.map((row) => row.insurance_number);
    assert.ok(ledgerInsurances.length > 0, 'the demo ledger insures Anna');
    assert.deepEqual(data.records.insurances!.map((row) => row.insurance_number).sort(), ledgerInsurances);
    assert.deepEqual(data.engagement.insurances.map((insurance) => insurance.insuranceNumber).sort(), ledgerInsurances);
    assert.ok(data.records.employments!.length > 0, 'her employment');
    const document = data.documents.find((d) => d.messageId === messageId);
    assert.deepEqual(document && { from: document.counterpartyId, type: document.messageType, status: document.status }, { from: 'demo-employer', type: 'SalaryAdjustment', status: 'applied' });
    assert.doesNotMatch(answer.body, /<\?xml|PERSON-DATA-1/, "no document's bytes");
    assert.doesNotMatch(answer.body, /order_ref/, 'no BankID order data');

    const audit = (await gateway.deps.db.query<{ username: string; outcome: string }>(
      `SELECT username, outcome FROM staff_audit WHERE action = 'person-data-export' AND subject = $1`, [PERSONS.anna],
    )).rows;
    assert.deepEqual(audit, [{ username: 'staff', outcome: 'done' }]);
  });

  test('twenty exports at once: twenty answers, twenty audit entries', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => exportOf(PERSONS.bertil)));
    assert.deepEqual([...new Set(answers.map((a) => a.statusCode))], [200]);
    const { rows } = await gateway.deps.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM staff_audit WHERE action = 'person-data-export' AND subject = $1`, [PERSONS.bertil]);
    assert.equal(rows[0]!.n, 20);
  });

  test('a person the gateway holds nothing on, and a malformed number: their codes, nothing audited', async () => {
    const unknown = await exportOf(STRANGER);
    assert.equal(unknown.statusCode, 404);
    assert.equal((unknown.json() as { code: string }).code, 'PERSON_NOT_FOUND');
    const malformed = await exportOf('199001011230');
    assert.equal(malformed.statusCode, 422);
    assert.equal((malformed.json() as { code: string }).code, 'PERSONAL_IDENTITY_NUMBER_INVALID');
    const { rows } = await gateway.deps.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM staff_audit WHERE action = 'person-data-export' AND subject IN ($1, '199001011230')`, [STRANGER]);
    assert.equal(rows[0]!.n, 0);
  });
});

test('depot-gateway person-data: a summary per kind, --export the JSON, exit 1 for a person it holds nothing on', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'dg-person-data-'));
  try {
    const config = await writeConfigFile(folder, testSettings(join(folder, 'data'), { logLevel: 'warn' }));
    const summary = await runCliToEnd(['person-data', PERSONS.anna, '--config', config]);
    assert.equal(summary.code, 0, summary.stderr);
    assert.match(summary.stdout, /^KIND\s+ROWS\n/);
    assert.match(summary.stdout, /\npersons\s+1\n/);
    assert.match(summary.stdout, /\ninsurances in the engagement\s+[1-9]/);
    const exported = await runCliToEnd(['person-data', PERSONS.anna, '--export', '--config', config]);
    assert.equal(exported.code, 0, exported.stderr);
    const data = JSON.parse(exported.stdout) as PersonDataExport;
    assert.equal(data.personalNumber, PERSONS.anna);
    assert.match(data.exportedBy, /^cli:/);
    const unknown = await runCliToEnd(['person-data', STRANGER, '--config', config]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /PERSON_NOT_FOUND/);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}, 120_000);
