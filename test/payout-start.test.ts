/**
 * Payouts that really begin, on the demo ledger in the real PostgreSQL: Anna Andersson
 * (born 1 January 1970) reaches 65 on 1 January 2035, the product's payout age; the
 * daily payout-start check records the notice that payout can begin, a letter tells her
 * and customer service is mailed the copy; staff register the payout she started on a
 * paper form, to her validated account (refusals with their codes, through the staff API
 * and the CLI); then three monthly payout runs each order
 * exactly one sell order and one payout in the custodian's DebitAccounts, and the last
 * one closes the insurance as paid out.
 */
import { test, expect } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSmtpSender } from '../src/channels/mail/smtp.sender.ts';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { SchemaRegistry } from '../src/messages/schema-registry.ts';
import { runDuePeriods } from '../src/calendar/calendar.scheduler.ts';
import { makeRun, runDepsFrom } from '../src/calendar/debit-run.ts';
import { listPayoutNotices, payoutNoticeJob } from '../src/calendar/payout-notices.job.ts';
import { runPayoutRun } from '../src/calendar/payout-run.ts';
import { payoutStartJob } from '../src/calendar/payout-start.job.ts';
import { createDemoLedgerTemplate, createTestDatabase, startTestGateway, testSettings, waitFor } from './support/harness.ts';
import { runCliToEnd, writeConfigFile } from './support/processes.ts';
import { startSmtpSink } from './support/smtp-sink.ts';

const CUSTOMER_SERVICE = 'customer.service@insurer.example';
const VALID_SEB_ACCOUNT = '50001234560';
const schemas = SchemaRegistry.load(join(PROJECT_ROOT, 'schemas'));

test('payout can begin at 65 → notice → payout registered by staff → three monthly runs, one sell order and one payout each → paid out', async () => {
  const template = await createDemoLedgerTemplate();
  const database = await createTestDatabase(template.name);
  const sink = await startSmtpSink();
  const folder = await mkdtemp(join(tmpdir(), 'dg-payout-start-'));
  let now = new Date('2034-12-31T08:00:00Z');
  const gateway = await startTestGateway({
    roles: ['api'], inline: true, database, clock: () => now,
    settings: {
      mail: { smtp: { host: sink.host, port: sink.port, from: 'gateway@insurer.example', timeoutMs: 5000 } },
      notifications: { operationsAddress: 'operations@insurer.example', customerServiceAddress: CUSTOMER_SERVICE },
    },
  });
  const mailSender = createSmtpSender(gateway.config.mail.smtp!);
  try {
    const { db } = gateway.deps;
    const deps = runDepsFrom(gateway.config, gateway.deps.scheduler, gateway.log);
    // The product offers a three-month payout beside its default 5, 10 and 20 years.
    await db.exec(`
      UPDATE products SET payout_months = '{3,60,120,240}' WHERE code = 'TJP-DEPA';
      INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id) VALUES
        ('DEPA-100001', '2034-12-29', 0, 30000.00, 30000.00, 1, 'test'), ('DEPA-100001', '2035-01-31', 0, 20500.00, 20500.00, 1, 'test'),
        ('DEPA-100001', '2035-02-28', 0, 10100.50, 10100.50, 1, 'test')`);

    // The daily check: not yet on 31 December 2034; on 1 January 2035 Anna's two insurances (T and K) reach 65.
    const startJob = payoutStartJob({ log: gateway.log });
    assert.deepEqual(await runDuePeriods(db, startJob, new Date('2034-12-31T05:00:00Z'), gateway.log), ['2034-12-31']);
    assert.deepEqual(await listPayoutNotices(db), []);
    assert.deepEqual(await runDuePeriods(db, startJob, new Date('2035-01-01T05:00:00Z'), gateway.log), ['2035-01-01']);
    const notices = await listPayoutNotices(db);
    assert.deepEqual(notices.map((n) => [n.insuranceNumber, n.canBegin, n.firstMonth]), [['INS-100001', '2035-01-01', null], ['INS-100006', '2035-01-01', null]]);
    // A day later nothing new: each insurance is noticed once.
    assert.deepEqual(await runDuePeriods(db, startJob, new Date('2035-01-02T05:00:00Z'), gateway.log), ['2035-01-02']);
    assert.equal((await listPayoutNotices(db)).length, 2);

    // The notice job: no address of Anna is known, so a letter tells her; customer service is mailed the copy.
    const noticeJob = payoutNoticeJob({ mailSender, address: CUSTOMER_SERVICE, log: gateway.log });
    await runDuePeriods(db, noticeJob, new Date('2035-01-01T07:00:00Z'), gateway.log);
    await waitFor(() => sink.mails.length === 1, 'the notice mail');
    const text = sink.mails[0]!.parsed.text ?? '';
    assert.equal(sink.mails[0]!.parsed.subject, 'Payout can begin: 2 insurances');
    assert.match(text, /- INS-100001 \(Anna Andersson, 19700101-\*\*\*\*\), custody account DEPA-100001: payout can begin 2035-01-01; not started yet; a letter to the insured is in the print queue/);
    assert.match(text, /a paper form is registered with depot-gateway payout-start/);
    assert.deepEqual((await listPayoutNotices(db)).map((n) => n.insuredNotice), ['letter', 'letter']);

    // Anna's account, registered for her and validated at 13:00 (test/payout-requests.test.ts walks the registration).
    await db.query(
      `INSERT INTO withdrawal_accounts (registration_id, customer_id, account_digits, clearing_number, account_number, bank_name, registered_at, registered_by, validation_day, status, decided_at)
       VALUES ('WA-ANNA', '197001011233', $1, '5000', '1234560', 'SEB', '2034-12-29T05:00:00Z', 'client:firm', '2034-12-29', 'validated', '2034-12-29T12:00:00Z')`, [VALID_SEB_ACCOUNT],
    );

    // Staff register the payout Anna started, on 2 January 2035.
    now = new Date('2035-01-02T09:00:00Z');
    const address = gateway.http!.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const register = async (number: string, body: object) => {
      const response = await fetch(`http://127.0.0.1:${port}/api/insurances/${number}/payout`, {
        method: 'POST', body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` },
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const valid = { period: '3m', firstMonth: '2035-01', withdrawalAccount: VALID_SEB_ACCOUNT };
    const refusals = [
      [{ ...valid, period: '7y' }, 422, 'PAYOUT_PERIOD_NOT_OFFERED'],
      [{ ...valid, firstMonth: '2034-12' }, 422, 'PAYOUT_NOT_YET_DUE'],
      [{ ...valid, withdrawalAccount: '50001234561' }, 422, 'BANK_ACCOUNT_INVALID'],
      [{ ...valid, withdrawalAccount: '50007654324' }, 422, 'PAYOUT_ACCOUNT_NOT_VALIDATED'],
      [{ firstMonth: 'January' }, 400, 'REQUEST_INVALID'],
    ] as const;
    for (const [body, status, code] of refusals) {
      const refused = await register('INS-100001', body);
      assert.deepEqual([refused.status, refused.body.code], [status, code], JSON.stringify(body));
    }
    assert.match(String((await register('INS-100001', { ...valid, period: '7y' })).body.message), /7y is not offered; the product offers 3m, 5y, 10y, 20y/);
    assert.equal((await register('INS-999999', valid)).body.code, 'RESOURCE_NOT_FOUND');
    const registered = await register('INS-100001', valid);
    assert.equal(registered.status, 201);
    expect(registered.body).toEqual({
      insuranceNumber: 'INS-100001', canBegin: '2035-01-01', period: '3m', months: 3, firstMonth: '2035-01', withdrawalAccount: VALID_SEB_ACCOUNT,
      bankName: 'SEB', registeredBy: 'staff:staff', registeredAt: '2035-01-02T09:00:00.000Z',
    });
    assert.equal((await register('INS-100001', valid)).body.code, 'PAYOUT_ALREADY_REGISTERED');
    const { rows: audit } = await db.query('SELECT start_month, months, withdrawal_account, registered_by, created_at FROM payouts');
    assert.deepEqual(audit, [{ start_month: '2035-01', months: 3, withdrawal_account: VALID_SEB_ACCOUNT, registered_by: 'staff:staff', created_at: now }]);

    // The CLI through the running gateway: life-long is offered by no product (exit 1); the K insurance from June.
    const config = await writeConfigFile(folder, testSettings(join(folder, 'data'), { databaseUrl: database.url, port, logLevel: 'warn' }));
    const lifeLong = await runCliToEnd(['payout-start', 'INS-100006', '--period', 'life-long', '--first-month', '2035-06', '--account', VALID_SEB_ACCOUNT, '--config', config]);
    assert.equal(lifeLong.code, 1, lifeLong.stderr);
    assert.match(lifeLong.stderr, /PAYOUT_PERIOD_NOT_OFFERED/);
    const cli = await runCliToEnd(['payout-start', 'INS-100006', '--period', '5y', '--first-month', '2035-06', '--account', VALID_SEB_ACCOUNT, '--json', '--config', config]);
    assert.equal(cli.code, 0, cli.stderr);
    assert.deepEqual(JSON.parse(cli.stdout), {
      insuranceNumber: 'INS-100006', canBegin: '2035-01-01', period: '5y', months: 60, firstMonth: '2035-06', withdrawalAccount: VALID_SEB_ACCOUNT,
      bankName: 'SEB', registeredBy: 'staff:staff', registeredAt: '2035-01-02T09:00:00.000Z',
    });

    // Three monthly runs: each file has exactly one sell order and one payout, for DEPA-100001.
    const months = ['2035-01', '2035-02', '2035-03'];
    for (const month of months) await makeRun(db, deps, (tx) => runPayoutRun(tx, deps, month, new Date(`${month}-01T05:00:00Z`)));
    const outbox = gateway.outbox('demo-custodian');
    expect((await readdir(outbox)).filter((name) => name.endsWith('.xml')).sort()).toEqual(months.map((m) => `payout-${m}.DebitAccounts.xml`));
    const orders = [];
    for (const month of months) {
      const xml = await readFile(join(outbox, `payout-${month}.DebitAccounts.xml`), 'utf8');
      assert.deepEqual(schemas.validate(xml, 'DebitAccounts'), []);
      assert.deepEqual([xml.match(/<AccountNumber>/g)?.length, xml.match(/<SellOrder>/g)?.length, xml.match(/<Payout>/g)?.length], [1, 1, 1], month);
      const amounts = [...xml.matchAll(/<Amount>([^<]+)<\/Amount>/g)].map((m) => m[1]);
      orders.push([/<AccountNumber>([^<]+)/.exec(xml)![1], ...amounts, /<SellBy>([^<]+)/.exec(xml)![1], /<PayBy>([^<]+)/.exec(xml)![1], /<Final>([^<]+)/.exec(xml)![1]]);
    }
    assert.deepEqual(orders, [
      ['DEPA-100001', '10000.00', '10000.00', '2035-01-10', '2035-01-22', 'false'],
      ['DEPA-100001', '10250.00', '10250.00', '2035-02-09', '2035-02-22', 'false'],
      ['DEPA-100001', '10100.50', '10100.50', '2035-03-09', '2035-03-22', 'true'],
    ]);
    const { rows: ended } = await db.query(
      `SELECT i.end_date::text, i.end_cause, i.ended_by, p.status, n.first_month FROM insurances i
         JOIN payouts p USING (insurance_number) JOIN payout_notices n USING (insurance_number) WHERE i.insurance_number = 'INS-100001'`);
    assert.deepEqual(ended, [{ end_date: '2035-03-22', end_cause: 'paid-out', ended_by: 'payout-run', status: 'completed', first_month: '2035-01' }]);
  } finally {
    await mailSender.close();
    await gateway.destroy();
    await sink.close();
    await database.drop();
    await template.drop();
    await rm(folder, { recursive: true, force: true });
  }
});
