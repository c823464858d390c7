/**
 * The monthly invoice specification end to end, on the embedded database and on
 * PostgreSQL: the calendar job, with the demo ledger and a second agreement, makes one
 * InvoiceSpecification per agreement and month (the current month and the one missed
 * before it), valid against its schema, with totals equal to what an independent query
 * of the ledger gives, delivered once to the employer's outbox; a run made again, the
 * catch-up, and three staff requests at once make nothing more; a run killed before its
 * commit leaves nothing, and one killed after its commit but before delivery is
 * delivered once by the restarted gateway's worker; staff send it again from the console
 * and the same bytes are delivered again, audited.
 */
import { describe, test, beforeAll, afterAll, expect } from '@jest/globals';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import type { Sql } from '../src/ledger/database.ts';
import { SchemaRegistry } from '../src/messages/schema-registry.ts';
import { runDuePeriods } from '../src/calendar/calendar.scheduler.ts';
import {
  invoiceSpecificationDepsFrom, invoiceSpecificationJob, makeInvoiceSpecifications, runInvoiceSpecifications, type InvoiceSpecificationDeps,
} from '../src/calendar/invoice-specification.job.ts';
import { signInToConsole } from './support/console-session.ts';
import { FIXED_NOW, createTestDatabase, deleteQueues, startTestGateway, waitFor, type TestDatabase, type TestGateway, type TestGatewayOptions } from './support/harness.ts';

const schemas = SchemaRegistry.load(join(PROJECT_ROOT, 'schemas'));

/** A second agreement (its employer is the configured other-employer), and one whose employer is no counterparty. */
const MORE_LEDGER = `
  INSERT INTO extra_premiums (invoice_number, insurance_number, amount, due_date) VALUES ('XP-900001', 'INS-100001', 5000, '2026-11-15');
  INSERT INTO billing_events (insurance_number, event, effective_date, reason) VALUES ('INS-100004', 'Stop', '2026-11-16', 'ParentalLeave');
  INSERT INTO agreements (agreement_number, name, employer_organisation_number) VALUES
    ('AGR-2001', 'Other Employer AB pension plan', '8020000009'), ('AGR-3001', 'Unconfigured AB pension plan', '5569999991');
  INSERT INTO persons (personal_identity_number, name) VALUES ('196505051237', 'Olle Ohlsson');
  INSERT INTO employments (agreement_number, personal_identity_number, start_date) VALUES ('AGR-2001', '196505051237', '2024-01-01');
  INSERT INTO custody_accounts (account_number, custodian_id, opened_on) VALUES ('DEPA-200001', 'demo-custodian', '2024-01-01');
  INSERT INTO insurances (insurance_number, agreement_number, insured_pin, product_code, start_date, policyholder, custody_account)
    VALUES ('INS-200001', 'AGR-2001', '196505051237', 'TJP-DEPA', '2024-01-01', '8020000009', 'DEPA-200001');
  INSERT INTO insurance_premiums (insurance_number, effective_date, monthly_amount) VALUES ('INS-200001', '2024-01-01', 2500), ('INS-200001', '2026-11-11', 2800);
`;

/**
 * The month's premium per insurance of an agreement, straight from the ledger's rows:
 * every day in force, not paid-up, billing not stopped, at the premium in force that
 * day, ÷ the month's days, rounded to the öre; and its extra premiums due in the month.
 */
async function ledgerTotals(sql: Sql, agreement: string, month: string): Promise<{ premiums: Map<string, string>; total: string }> {
  const { rows } = await sql.query<{ insurance_number: string; premium: string }>(
    `WITH span AS (SELECT ($2 || '-01')::date AS first_day, (($2 || '-01')::date + interval '1 month' - interval '1 day')::date AS last_day),
          days AS (SELECT d::date AS day FROM span, generate_series(span.first_day, span.last_day, interval '1 day') AS d),
          billed AS (
            SELECT i.insurance_number,
                   (SELECT p.monthly_amount FROM insurance_premiums p WHERE p.insurance_number = i.insurance_number AND p.effective_date <= d.day
                     ORDER BY p.effective_date DESC, p.id DESC LIMIT 1) AS monthly
              FROM insurances i CROSS JOIN days d
             WHERE i.agreement_number = $1 AND i.start_date <= d.day AND (i.end_date IS NULL OR i.end_date >= d.day)
               AND NOT EXISTS (SELECT 1 FROM insurance_paid_up u WHERE u.insurance_number = i.insurance_number AND u.paid_up_from <= d.day)
               AND coalesce((SELECT b.event FROM billing_events b WHERE b.insurance_number = i.insurance_number AND b.effective_date <= d.day
                              ORDER BY b.effective_date DESC, b.id DESC LIMIT 1), 'Start') <> 'Stop')
     SELECT insurance_number, round(sum(monthly) / (SELECT count(*) FROM days), 2)::text AS premium
       FROM billed WHERE monthly IS NOT NULL GROUP BY insurance_number ORDER BY insurance_number`,
    [agreement, month],
  );
  const extras = await sql.query<{ total: string | null }>(
    `SELECT sum(x.amount)::text AS total FROM extra_premiums x JOIN insurances i ON i.insurance_number = x.insurance_number
      WHERE i.agreement_number = $1 AND to_char(x.due_date, 'YYYY-MM') = $2`,
    [agreement, month],
  );
  const cents = [...rows.map((row) => row.premium), extras.rows[0]?.total ?? '0'].reduce((sum, amount) => sum + Math.round(Number(amount) * 100), 0);
  return { premiums: new Map(rows.map((row) => [row.insurance_number, row.premium])), total: (cents / 100).toFixed(2) };
}

const tag = (xml: string, path: RegExp) => path.exec(xml)?.[1];

async function outboxFiles(gateway: TestGateway, counterparty: string): Promise<string[]> {
  const folder = gateway.outbox(counterparty);
  return existsSync(folder) ? (await readdir(folder)).filter((name) => name.startsWith('invoice-specification-')).sort() : [];
}

const ENGINES: ReadonlyArray<readonly [string, TestGatewayOptions]> = [['the embedded database', { embedded: true }], ['PostgreSQL', {}]];

describe.each(ENGINES)('invoice specifications on %s', (engine, options) => {
  let database: TestDatabase | undefined;
  let gateway: TestGateway;
  let deps: InvoiceSpecificationDeps;
  let closed = false;
  const files = new Map<string, Buffer>();

  beforeAll(async () => {
    database = options.embedded ? undefined : await createTestDatabase();
    gateway = await startTestGateway({ ...options, ...(database ? { database } : {}), roles: ['api'], inline: true });
    await gateway.deps.db.exec(MORE_LEDGER);
    deps = invoiceSpecificationDepsFrom(gateway.config, gateway.deps.scheduler, gateway.log);
  });
  afterAll(async () => {
    if (closed) {
      await deleteQueues(gateway.config.queuePrefix);
      await rm(gateway.dataDir, { recursive: true, force: true });
    } else {
      await gateway?.destroy();
    }
    await database?.drop();
  });

  test('a run killed before its commit leaves nothing behind', async () => {
    await assert.rejects(gateway.deps.db.transaction(async (tx) => {
      const made = await runInvoiceSpecifications(tx, deps, '2026-11', FIXED_NOW);
      assert.equal(made.created.length, 2);
      throw new Error('killed before the commit');
    }), /killed before the commit/);
    const { rows } = await gateway.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM invoice_specifications');
    assert.equal(rows[0]!.n, 0);
    expect(await outboxFiles(gateway, 'demo-employer')).toEqual([]);
  });

  test('the calendar job makes one specification per agreement and month, equal to the ledger, delivered once', async () => {
    const job = invoiceSpecificationJob(deps);
    // 22 November: the 5th has passed; October is the month missed before it (catch-up of two months).
    assert.deepEqual(await runDuePeriods(gateway.deps.db, job, FIXED_NOW, gateway.log), ['2026-10', '2026-11']);
    const { rows } = await gateway.deps.db.query<{ agreement_number: string; month: string; counterparty_id: string; total: string }>(
      'SELECT agreement_number, month, counterparty_id, total::text FROM invoice_specifications ORDER BY month, agreement_number',
    );
    assert.deepEqual(rows.map((row) => [row.agreement_number, row.month, row.counterparty_id]), [
      ['AGR-1001', '2026-10', 'demo-employer'], ['AGR-2001', '2026-10', 'other-employer'],
      ['AGR-1001', '2026-11', 'demo-employer'], ['AGR-2001', '2026-11', 'other-employer'],
    ], 'AGR-3001, whose employer is no counterparty, has none');
    // fs.readdir's arrays are of another realm under jest: compared with toEqual.
    expect(await outboxFiles(gateway, 'demo-employer')).toEqual([
      'invoice-specification-AGR-1001-2026-10.InvoiceSpecification.xml', 'invoice-specification-AGR-1001-2026-11.InvoiceSpecification.xml',
    ]);
    expect(await outboxFiles(gateway, 'other-employer')).toEqual([
      'invoice-specification-AGR-2001-2026-10.InvoiceSpecification.xml', 'invoice-specification-AGR-2001-2026-11.InvoiceSpecification.xml',
    ]);
    for (const row of rows) {
      const counterparty = row.counterparty_id;
      const name = `invoice-specification-${row.agreement_number}-${row.month}.InvoiceSpecification.xml`;
      const bytes = await readFile(join(gateway.outbox(counterparty), name));
      files.set(name, bytes);
      const xml = bytes.toString('utf8');
      assert.deepEqual(schemas.validate(xml, 'InvoiceSpecification'), [], `${name} is valid`);
      const ledger = await ledgerTotals(gateway.deps.db, row.agreement_number, row.month);
      assert.equal(tag(xml, /<Totals>[\s\S]*?<Total>([^<]+)<\/Total>/), ledger.total, `${name}: the total is the ledger's`);
      assert.equal(row.total, ledger.total);
      const premiums = new Map([...xml.matchAll(/<Insurance>\s*<InsuranceNumber>([^<]+)<\/InsuranceNumber>[\s\S]*?<Premium>([^<]+)<\/Premium>/g)].map((m) => [m[1]!, m[2]!]));
      for (const [insurance, premium] of ledger.premiums) assert.equal(premiums.get(insurance), premium, `${name}: ${insurance}`);
      for (const [insurance, premium] of premiums) assert.equal(ledger.premiums.get(insurance) ?? '0.00', premium, `${name}: ${insurance} billed no day`);
    }
    const november = files.get('invoice-specification-AGR-1001-2026-11.InvoiceSpecification.xml')!.toString('utf8');
    // Anna 1800 + 1000 + the 5000 extra premium, Bertil 1800, Cecilia stopped all month, David stopped from the 16th: 900.
    assert.equal(tag(november, /<Totals>[\s\S]*?<Total>([^<]+)<\/Total>/), '10500.00');
    assert.match(november, /<BillingStop>\s*<From>2026-11-16<\/From>\s*<Reason>ParentalLeave<\/Reason>\s*<DaysInMonth>15<\/DaysInMonth>/);
    assert.match(november, /<Kind>BillingStopped<\/Kind>\s*<EffectiveDate>2026-11-16<\/EffectiveDate>\s*<InsuranceNumber>INS-100004<\/InsuranceNumber>/);
    assert.doesNotMatch(november, /INS-100005/, 'paid-up since July: not invoiced');
    const other = files.get('invoice-specification-AGR-2001-2026-11.InvoiceSpecification.xml')!.toString('utf8');
    assert.match(other, /<Kind>PremiumChanged<\/Kind>\s*<EffectiveDate>2026-11-11<\/EffectiveDate>\s*<InsuranceNumber>INS-200001<\/InsuranceNumber>\s*<From>2500.00<\/From>\s*<To>2800.00<\/To>/);
    const deliveries = await gateway.deps.db.query<{ document_id: string; n: number }>(
      `SELECT document_id, count(*)::int AS n FROM outgoing_deliveries WHERE document_id LIKE 'IS-%' GROUP BY document_id ORDER BY document_id`,
    );
    assert.deepEqual(deliveries.rows.map((row) => [row.document_id, row.n]), [
      ['IS-AGR-1001-2026-10', 1], ['IS-AGR-1001-2026-11', 1], ['IS-AGR-2001-2026-10', 1], ['IS-AGR-2001-2026-11', 1],
    ]);
  });

  test('a second run, the catch-up and staff requests at once make nothing more', async () => {
    assert.deepEqual(await runDuePeriods(gateway.deps.db, invoiceSpecificationJob(deps), FIXED_NOW, gateway.log), []);
    const again = await makeInvoiceSpecifications(gateway.deps.db, deps, '2026-11', FIXED_NOW);
    assert.deepEqual(again.created, []);
    const together = await Promise.all([1, 2, 3].map(() => makeInvoiceSpecifications(gateway.deps.db, deps, '2026-12', FIXED_NOW)));
    assert.deepEqual(together.flatMap((made) => made.created.map((c) => c.agreementNumber)).sort(), ['AGR-1001', 'AGR-2001']);
    const { rows } = await gateway.deps.db.query<{ month: string; n: number }>('SELECT month, count(*)::int AS n FROM invoice_specifications GROUP BY month ORDER BY month');
    assert.deepEqual(rows.map((row) => [row.month, row.n]), [['2026-10', 2], ['2026-11', 2], ['2026-12', 2]]);
    // One December file each, whatever number of requests handed the month's document to delivery (each delivery writes the same file).
    expect(await outboxFiles(gateway, 'demo-employer')).toEqual([
      'invoice-specification-AGR-1001-2026-10.InvoiceSpecification.xml', 'invoice-specification-AGR-1001-2026-11.InvoiceSpecification.xml',
      'invoice-specification-AGR-1001-2026-12.InvoiceSpecification.xml',
    ]);
    for (const [name, bytes] of files) {
      const counterparty = name.includes('AGR-1001') ? 'demo-employer' : 'other-employer';
      assert.ok(bytes.equals(await readFile(join(gateway.outbox(counterparty), name))), `${name} unchanged`);
    }
  });

  test('staff see it in the console and send it again: the same bytes, delivered again and audited', async () => {
    const http = gateway.http!;
    const session = await signInToConsole(http, 'staff', 'test-password');
    const list = await http.inject({ url: '/console/invoice-specifications', headers: { cookie: session.cookie } });
    assert.equal(list.statusCode, 200);
    assert.match(list.body, /IS-AGR-1001-2026-11[\s\S]*?10500\.00/);
    const id = 'IS-AGR-1001-2026-11';
    const detail = await http.inject({ url: `/console/invoice-specifications/${id}`, headers: { cookie: session.cookie } });
    assert.match(detail.body, /<td class="number" id="total">10500\.00<\/td>/);
    const pdf = await http.inject({ url: `/api/invoice-specifications/${id}/pdf`, headers: { cookie: session.cookie } });
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    assert.equal(pdf.rawPayload.subarray(0, 5).toString(), '%PDF-');
    const name = 'invoice-specification-AGR-1001-2026-11.InvoiceSpecification.xml';
    // The employer took the file away; staff send it again.
    await rm(join(gateway.outbox('demo-employer'), name));
    const sent = await http.inject({
      method: 'POST', url: `/console/invoice-specifications/${id}/send-again`, headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: session.csrf, reason: 'The employer lost the file' }).toString(),
    });
    assert.equal(sent.statusCode, 303, sent.body);
    const again = await waitFor(async () => (existsSync(join(gateway.outbox('demo-employer'), name)) ? readFile(join(gateway.outbox('demo-employer'), name)) : undefined), 'the file sent again');
    assert.ok(again.equals(files.get(name)!), 'the same bytes');
    const { rows } = await gateway.deps.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM outgoing_deliveries WHERE document_id = $1 AND outcome = 'delivered'`, [id]);
    assert.equal(rows[0]!.n, 2);
    const audit = await gateway.deps.db.query<{ username: string; action: string; reason: string; outcome: string }>('SELECT username, action, reason, outcome FROM staff_audit WHERE subject = $1', [id]);
    assert.deepEqual(audit.rows, [{ username: 'staff', action: 'send-again', reason: 'The employer lost the file', outcome: 'done' }]);
    const basic = `Basic ${Buffer.from('staff:test-password').toString('base64')}`;
    const api = await http.inject({ method: 'POST', url: '/api/invoice-specifications/IS-NONE-2026-11/send-again', headers: { authorization: basic }, payload: {} });
    assert.equal(api.statusCode, 404);
  });

  test(`a run that committed but was not delivered is delivered once after a restart (${engine})`, async () => {
    // Made and committed, then the process stops before handing it over.
    await gateway.deps.db.transaction((tx) => runInvoiceSpecifications(tx, deps, '2026-09', FIXED_NOW));
    assert.ok(!(await outboxFiles(gateway, 'demo-employer')).some((name) => name.includes('2026-09')));
    await gateway.close();
    closed = true;
    const restarted = await startTestGateway({
      ...options, ...(database ? { database } : {}), roles: ['worker'], settings: { dataDir: gateway.dataDir, workers: { backoffMs: 50, attempts: 5, reconcileEveryMs: 300, reconcileAfterMs: 100 } },
    });
    try {
      const name = 'invoice-specification-AGR-1001-2026-09.InvoiceSpecification.xml';
      await waitFor(async () => (await outboxFiles(restarted, 'demo-employer')).includes(name), 'the September specification delivered', 30_000);
      await waitFor(async () => (await restarted.deps.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM outgoing_documents WHERE document_id LIKE 'IS-%' AND delivered_at IS NULL`)).rows[0]!.n === 0, 'every specification delivered');
      const { rows } = await restarted.deps.db.query<{ month: string; n: number; deliveries: number }>(
        `SELECT s.month, count(*)::int AS n, sum((SELECT count(*) FROM outgoing_deliveries d WHERE d.document_id = s.document_id))::int AS deliveries
           FROM invoice_specifications s WHERE s.agreement_number = 'AGR-1001' AND s.month <> '2026-12' GROUP BY s.month ORDER BY s.month`,
      );
      // September once, delivered once; the catch-up at start made nothing new; November's two deliveries are the send-again.
      assert.deepEqual(rows.map((row) => [row.month, row.n, row.deliveries]), [['2026-09', 1, 1], ['2026-10', 1, 1], ['2026-11', 1, 2]]);
      expect((await outboxFiles(restarted, 'demo-employer')).filter((file) => file.includes('2026-09'))).toEqual([name]);
    } finally {
      await restarted.destroy();
    }
  });
});
