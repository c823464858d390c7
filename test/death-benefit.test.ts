/**
 * The death benefit of repayment protection, on the demo ledger in the real PostgreSQL:
 * staff record deaths in May 2026 (staff API and CLI); only the capital insurance with
 * repayment protection and no payout records a benefit (its insurer's 1 % shown to
 * staff). A benefit is paid to the beneficiary staff record, with the death or
 * afterwards: one without waits, listed as waiting, and no run orders it. The payout
 * run after the beneficiary is recorded orders it as one sell order of the whole account
 * and one final payout to the beneficiary's account (ToAccount) in the custodian's
 * DebitAccounts, and puts the insurer's 1 % in a pain.001 payment order to the same
 * account, valid against schemas/iso20022/pain.001.001.03.xsd — once: the runs made
 * again order and pay nothing more, and each file has a MsgId of its own. A death
 * recorded before the custodian reported a value is valued by the run that orders it.
 */
import { expect, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { PaymentOrderSchema } from '../src/messages/payment-order.schema.ts';
import { SchemaRegistry } from '../src/messages/schema-registry.ts';
import { deathBenefitOrderDays } from '../src/calendar/death-benefit-orders.ts';
import { makeRun, runDepsFrom } from '../src/calendar/debit-run.ts';
import { runPayoutRun, schedulePayout } from '../src/calendar/payout-run.ts';
import { createDemoLedgerTemplate, createTestDatabase, startTestGateway, testSettings } from './support/harness.ts';
import { signInToConsole } from './support/console-session.ts';
import { runCliToEnd, writeConfigFile } from './support/processes.ts';

/** The insured's registered payout account, as staff register a payout. */
const PAYOUT_REGISTRATION = { withdrawalAccount: '50001234560', registeredBy: 'staff:test' };
/** The insurer's own account, which its 1 % is paid from. */
const INSURER_ACCOUNT = { name: 'Test Försäkring AB', iban: 'SE4550000000058398257466', bic: 'ESSESESS' };
/** Beneficiaries: an SEB account (IBAN SE69 5000 0000 0500 0123 4560) and a Handelsbanken one (the account number alone in its IBAN). */
const EVA = { name: 'Eva Svensson', account: '50001234560', iban: 'SE6950000000050001234560' };
const PER = { name: 'Per Persson', account: '6000123456789', iban: 'SE7160000000000123456789' };

const schemas = SchemaRegistry.load(join(PROJECT_ROOT, 'schemas'));
const paymentOrderSchema = PaymentOrderSchema.load(PaymentOrderSchema.fileIn(join(PROJECT_ROOT, 'schemas')));

test('a death before payout of a K insurance with repayment protection → one sell-all order and one final payout to the beneficiary, and a pain.001 for the 1 %, once; other deaths order nothing', async () => {
  const template = await createDemoLedgerTemplate();
  const database = await createTestDatabase(template.name);
  const folder = await mkdtemp(join(tmpdir(), 'dg-death-benefit-'));
  let now = new Date('2026-05-20T09:00:00Z');
  const gateway = await startTestGateway({ roles: ['api'], inline: true, database, clock: () => now, settings: { insurerAccount: INSURER_ACCOUNT } });
  try {
    const { db } = gateway.deps;
    const deps = runDepsFrom(gateway.config, gateway.deps.scheduler, gateway.log);
    // INS-100006 is the demo's K insurance with repayment protection. Three more K insurances at
    // the demo custodian: without repayment protection, with it but in payout, and with it but
    // no custody value reported yet when the death is recorded.
    await db.exec(`
      INSERT INTO insurances (insurance_number, agreement_number, insured_pin, product_code, start_date, policyholder, custody_account) VALUES
        ('INS-200001', 'AGR-1001', '198002021239', 'KF-DEPA', '2022-01-01', '5561234567', 'DEPA-200001'),
        ('INS-200002', 'AGR-1001', '199003031235', 'KF-DEPA', '2022-01-01', '5561234567', 'DEPA-200002'),
        ('INS-200003', 'AGR-1001', '197607151235', 'KF-DEPA', '2022-01-01', '5561234567', 'DEPA-200003');
      INSERT INTO custody_accounts (account_number, custodian_id, opened_on) VALUES
        ('DEPA-200001', 'demo-custodian', '2022-01-01'), ('DEPA-200002', 'demo-custodian', '2022-01-01'), ('DEPA-200003', 'demo-custodian', '2022-01-01');
      INSERT INTO insurance_coverages (insurance_number, coverage_type, from_date, message_id) VALUES
        ('INS-200002', 'repaymentProtection', '2022-01-01', 'test'), ('INS-200003', 'repaymentProtection', '2022-01-01', 'test');
      INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id) VALUES
        ('DEPA-100006', '2026-05-15', 0, 123456.78, 123456.78, 1, 'test'), ('DEPA-100006', '2026-05-29', 0, 125000.00, 125000.00, 1, 'test'),
        ('DEPA-200001', '2026-05-15', 0, 50000.00, 50000.00, 1, 'test'), ('DEPA-200002', '2026-05-15', 0, 80000.00, 80000.00, 1, 'test')`);
    await db.transaction((tx) => schedulePayout(tx, { insuranceNumber: 'INS-200002', startMonth: '2026-05', terms: { months: 60 }, registration: PAYOUT_REGISTRATION }, now));

    const address = gateway.http!.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const staff = async (method: string, path: string, body?: object) => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, {
        method, ...(body ? { body: JSON.stringify(body) } : {}),
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` },
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const end = (number: string, date: string, extra: object = {}) => staff('POST', `/api/insurances/${number}/end`, { cause: 'death', date, ...extra });

    // An account whose check digit is wrong, or a beneficiary for an end that is no death: refused, nothing recorded.
    const refused = await end('INS-100006', '2026-05-18', { beneficiary: { name: EVA.name, account: '50001234561' } });
    assert.deepEqual([refused.status, refused.body.code], [422, 'BANK_ACCOUNT_INVALID'], JSON.stringify(refused.body));
    assert.match(String(refused.body.message), /beneficiary\.account: the check digit of SEB account 5000 1234561 is wrong/);
    const notDeath = await staff('POST', '/api/insurances/INS-100006/end', { cause: 'surrendered', date: '2026-05-18', beneficiary: { name: EVA.name, account: EVA.account } });
    assert.deepEqual([notDeath.status, notDeath.body.code], [400, 'REQUEST_INVALID']);
    const { rows: untouched } = await db.query(`SELECT end_date FROM insurances WHERE insurance_number = 'INS-100006'`);
    assert.deepEqual(untouched, [{ end_date: null }], 'a refused end records nothing');

    // Repayment protection, no payout: the benefit is recorded with the end, on the latest value
    // known that day (15 May), with the beneficiary the end names. By hand: 1 % of 123 456.78 is
    // 1 234.5678 → 1 234.57, so 101 % is 123 456.78 from the account + 1 234.57 from the insurer = 124 691.35.
    const died = await end('INS-100006', '2026-05-18', { beneficiary: { name: ` ${EVA.name} `, account: EVA.account } });
    assert.equal(died.status, 201);
    // fetch's Response.json() parses in Node's own realm: compared with toStrictEqual.
    expect(died.body.deathBenefit).toStrictEqual({
      insuranceNumber: 'INS-100006', deathDate: '2026-05-18', custodyValue: '123456.78', valueAsOf: '2026-05-15', insurerAmount: '1234.57',
      recordedBy: 'staff:staff', recordedAt: '2026-05-20T09:00:00.000Z', order: null,
      beneficiary: { name: EVA.name, account: EVA.account, recordedBy: 'staff:staff', recordedAt: '2026-05-20T09:00:00.000Z' }, paymentOrderId: null,
    });
    // A P/T insurance, and a K insurance in payout: the end only.
    for (const number of ['INS-100003', 'INS-200002']) {
      const ended = await end(number, '2026-05-18');
      assert.deepEqual([ended.status, ended.body.cause, 'deathBenefit' in ended.body], [201, 'death', false], number);
    }
    // No value reported yet, and no beneficiary named: recorded without either.
    expect((await end('INS-200003', '2026-05-19')).body.deathBenefit).toStrictEqual({
      insuranceNumber: 'INS-200003', deathDate: '2026-05-19', custodyValue: null, valueAsOf: null, insurerAmount: null,
      recordedBy: 'staff:staff', recordedAt: '2026-05-20T09:00:00.000Z', order: null, beneficiary: null, paymentOrderId: null,
    });
    // No benefit to pay: a beneficiary cannot be recorded for INS-100003.
    const noBenefit = await staff('POST', '/api/insurances/INS-100003/death-benefit/beneficiary', { name: PER.name, account: PER.account });
    assert.deepEqual([noBenefit.status, noBenefit.body.code], [404, 'RESOURCE_NOT_FOUND']);
    // The CLI through the gateway: a K insurance without repayment protection, told that nothing more is ordered.
    const config = await writeConfigFile(folder, testSettings(join(folder, 'data'), { databaseUrl: database.url, port, logLevel: 'warn' }));
    const cli = await runCliToEnd(['insurance-end', 'INS-200001', '--cause', 'death', '--date', '2026-05-18', '--config', config]);
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /^INSURANCE +LAST DAY +CAUSE +RECORDED BY +RECORDED AT\nINS-200001 +2026-05-18 +death +staff:staff /);
    assert.match(cli.stdout, /\nNo death benefit \(only a capital insurance with repayment protection and no payout registered pays one\): nothing more is ordered\.\n$/);
    const { rows: benefits } = await db.query('SELECT insurance_number FROM death_benefits ORDER BY 1');
    assert.deepEqual(benefits, [{ insurance_number: 'INS-100006' }, { insurance_number: 'INS-200003' }]);

    // June's run: INS-100006's account sold whole and paid out in one final payout to Eva's account;
    // INS-200003 has no beneficiary yet and waits, listed as waiting.
    await db.exec(`INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
      VALUES ('DEPA-200003', '2026-05-29', 0, 9999.95, 9999.95, 1, 'test')`);
    now = new Date('2026-06-01T05:00:00Z');
    await makeRun(db, deps, (tx) => runPayoutRun(tx, deps, '2026-06', now));
    const outbox = gateway.outbox('demo-custodian');
    assert.deepEqual(await accountsIn(join(outbox, 'payout-2026-06.DebitAccounts.xml')), [
      ['DEPA-100006', ['sell 123456.78 by 2026-06-10'], [`pay 123456.78 by 2026-06-22, installment 1, final true, to ${EVA.account}`]],
    ]);
    const waiting = await staff('GET', '/api/death-benefits?waiting=true');
    expect((waiting.body.deathBenefits as { insuranceNumber: string; status: string }[]).map(({ insuranceNumber, status }) => [insuranceNumber, status]))
      .toEqual([['INS-200003', 'awaiting-beneficiary']]);
    // The console's page says the same.
    const session = await signInToConsole(gateway.http!, 'staff', 'test-password');
    const consolePage = async (url: string) => (await gateway.http!.inject({ url, headers: { cookie: session.cookie } }));
    const benefitsPage = (await consolePage('/console/death-benefits?waiting=true')).body;
    assert.match(benefitsPage, /<td>INS-200003<\/td><td>2026-05-19<\/td><td>waiting for the beneficiary&#39;s account<\/td>/);
    assert.doesNotMatch(benefitsPage, /INS-100006/, 'ordered and paid: not waiting');

    // June's payment order: Eva's 1 %, from the insurer's account to her IBAN on the payout's pay-by day.
    const [june] = await paymentOrders();
    assert.ok(june);
    assert.deepEqual(paymentOrderSchema.validate(june.xml), []);
    assert.deepEqual(june.facts, {
      msgId: june.id, ctrlSum: '1234.57', nbOfTxs: '1', executionDate: '2026-06-22', debtorIban: INSURER_ACCOUNT.iban, debtorBic: INSURER_ACCOUNT.bic,
      payments: [`DB-INS-100006 1234.57 SEK to ${EVA.name} ${EVA.iban}`],
    });
    // The staff API and the CLI give finance staff the same file, byte for byte.
    const download = await fetch(`http://127.0.0.1:${port}/api/payment-orders/${june.id}`, { headers: { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` } });
    assert.deepEqual([download.status, download.headers.get('content-type'), await download.text()], [200, 'application/xml; charset=utf-8', june.xml]);

    // The beneficiary of INS-200003, recorded afterwards: a bad account refused, then through the CLI (via the staff API).
    const badAccount = await staff('POST', '/api/insurances/INS-200003/death-benefit/beneficiary', { name: PER.name, account: '6000' });
    assert.deepEqual([badAccount.status, badAccount.body.code], [422, 'BANK_ACCOUNT_INVALID']);
    const recorded = await runCliToEnd(['death-benefit', 'INS-200003', '--beneficiary-name', PER.name, '--beneficiary-account', PER.account, '--json', '--config', config]);
    assert.equal(recorded.code, 0, recorded.stderr);
    const perBenefit = JSON.parse(recorded.stdout) as { beneficiary: { name: string; account: string; recordedBy: string }; status: string };
    assert.deepEqual([perBenefit.beneficiary.name, perBenefit.beneficiary.account, perBenefit.beneficiary.recordedBy, perBenefit.status], [PER.name, PER.account, 'staff:staff', 'awaiting-run']);

    // July's run orders it, valued by the run: 1 % of 9 999.95 is 99.9995 → 100.00.
    const julyDays = deathBenefitOrderDays('2026-07');
    now = new Date('2026-07-01T05:00:00Z');
    await makeRun(db, deps, (tx) => runPayoutRun(tx, deps, '2026-07', now));
    assert.deepEqual(await accountsIn(join(outbox, 'payout-2026-07.DebitAccounts.xml')), [
      ['DEPA-200003', [`sell 9999.95 by ${julyDays.sellBy}`], [`pay 9999.95 by ${julyDays.payBy}, installment 1, final true, to ${PER.account}`]],
    ]);
    const { rows: ordered } = await db.query(
      `SELECT insurance_number, custody_value::text, value_as_of::text, insurer_amount::text, run_key, sell_by::text, pay_by::text FROM death_benefits ORDER BY 1`);
    assert.deepEqual(ordered, [
      { insurance_number: 'INS-100006', custody_value: '123456.78', value_as_of: '2026-05-15', insurer_amount: '1234.57', run_key: '2026-06', sell_by: '2026-06-10', pay_by: '2026-06-22' },
      { insurance_number: 'INS-200003', custody_value: '9999.95', value_as_of: '2026-05-29', insurer_amount: '100.00', run_key: '2026-07', sell_by: julyDays.sellBy, pay_by: julyDays.payBy },
    ]);
    const { rows: lines } = await db.query(`SELECT insurance_number, run_key, charge, basis, amount::text FROM debit_lines ORDER BY 1`);
    assert.deepEqual(lines, [
      { insurance_number: 'INS-100006', run_key: '2026-06', charge: 'SellOrder', basis: 'DeathBenefit', amount: '123456.78' },
      { insurance_number: 'INS-200003', run_key: '2026-07', charge: 'SellOrder', basis: 'DeathBenefit', amount: '9999.95' },
    ]);
    const [july, juneAgain] = await paymentOrders();
    assert.ok(july && juneAgain);
    assert.deepEqual(paymentOrderSchema.validate(july.xml), []);
    assert.deepEqual(july.facts, {
      msgId: july.id, ctrlSum: '100.00', nbOfTxs: '1', executionDate: julyDays.payBy, debtorIban: INSURER_ACCOUNT.iban, debtorBic: INSURER_ACCOUNT.bic,
      payments: [`DB-INS-200003 100.00 SEK to ${PER.name} ${PER.iban}`],
    });
    assert.equal(juneAgain.xml, june.xml, "June's file is kept as made");
    assert.notEqual(july.id, june.id, 'each file its own MsgId');

    // Once: June and July made again order and pay nothing more (INS-200002's payout ended with its insured).
    const again = await makeRun(db, deps, (tx) => runPayoutRun(tx, deps, '2026-06', new Date('2026-07-02T05:00:00Z')));
    const julyAgain = await makeRun(db, deps, (tx) => runPayoutRun(tx, deps, '2026-07', new Date('2026-07-02T05:00:00Z')));
    assert.deepEqual([again.created, julyAgain.created], [[], []]);
    expect((await readdir(outbox)).filter((name) => name.endsWith('.xml')).sort()).toStrictEqual(['payout-2026-06.DebitAccounts.xml', 'payout-2026-07.DebitAccounts.xml']);
    const { rows: counts } = await db.query(`SELECT (SELECT count(*)::int FROM debit_lines) AS lines, (SELECT count(*)::int FROM payout_orders) AS orders,
      (SELECT count(*)::int FROM payment_orders) AS "paymentOrders", (SELECT count(DISTINCT payment_order_id)::int FROM death_benefits) AS "paidBy"`);
    assert.deepEqual(counts, [{ lines: 2, orders: 0, paymentOrders: 2, paidBy: 2 }]);
    // The CLI lists both for finance staff, and prints one file as made.
    const listed = await runCliToEnd(['payment-orders', '--json', '--config', config]);
    assert.equal(listed.code, 0, listed.stderr);
    expect(listed.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { paymentOrderId: string; controlSum: string; insuranceNumbers: string[] })).map((o) => [o.paymentOrderId, o.controlSum, o.insuranceNumbers]))
      .toEqual([[july.id, '100.00', ['INS-200003']], [june.id, '1234.57', ['INS-100006']]]);
    const shown = await runCliToEnd(['payment-orders', 'show', june.id, '--config', config]);
    assert.deepEqual([shown.code, shown.stdout], [0, june.xml], shown.stderr);
    const none = await staff('GET', '/api/death-benefits?waiting=true');
    expect(none.body.deathBenefits).toStrictEqual([]);
    // The console lists both files for finance staff, and downloads each as made.
    const ordersPage = (await consolePage('/console/payment-orders')).body;
    assert.deepEqual([...ordersPage.matchAll(/<a href="\/console\/payment-orders\/(PO-[0-9A-Z]+)\/file">/g)].map((m) => m[1]), [july.id, june.id]);
    const file = await consolePage(`/console/payment-orders/${june.id}/file`);
    assert.deepEqual([file.statusCode, file.headers['content-disposition'], file.body], [200, `attachment; filename="${june.id}.pain.001.001.03.xml"`, june.xml]);
    assert.match((await consolePage('/console/death-benefits')).body, new RegExp(`<td>INS-100006</td><td>2026-05-18</td><td>ordered and in a payment order</td>[\\s\\S]*?${june.id}`));

    /** The payment orders, newest first: each file and what it says. */
    async function paymentOrders() {
      const { rows } = await db.query<{ id: string; body: Buffer | Uint8Array }>('SELECT payment_order_id AS id, body FROM payment_orders ORDER BY created_at DESC');
      return rows.map(({ id, body }) => {
        const xml = Buffer.from(body).toString('utf8');
        const one = (pattern: RegExp) => pattern.exec(xml)?.[1];
        return {
          id, xml,
          facts: {
            msgId: one(/<MsgId>([^<]+)/), ctrlSum: one(/<GrpHdr>[\s\S]*?<CtrlSum>([^<]+)/), nbOfTxs: one(/<GrpHdr>[\s\S]*?<NbOfTxs>([^<]+)/),
            executionDate: one(/<ReqdExctnDt>([^<]+)/), debtorIban: one(/<DbtrAcct>\s*<Id>\s*<IBAN>([^<]+)/), debtorBic: one(/<BIC>([^<]+)/),
            payments: [...xml.matchAll(/<EndToEndId>([^<]+)[\s\S]*?<InstdAmt Ccy="(\w+)">([^<]+)[\s\S]*?<Cdtr>\s*<Nm>([^<]+)[\s\S]*?<IBAN>([^<]+)/g)]
              .map((m) => `${m[1]} ${m[3]} ${m[2]} to ${m[4]} ${m[5]}`),
          },
        };
      });
    }
  } finally {
    await gateway.destroy();
    await database.drop();
    await template.drop();
    await rm(folder, { recursive: true, force: true });
  }
});

/** Each account of a DebitAccounts file: its number, sell orders and payout (with the account paid to); the file is valid against its schema. */
async function accountsIn(file: string): Promise<unknown[]> {
  const xml = await readFile(file, 'utf8');
  assert.deepEqual(schemas.validate(xml, 'DebitAccounts'), []);
  return [...xml.matchAll(/<Account>([\s\S]*?)<\/Account>/g)].map(([, account]) => [
    /<AccountNumber>([^<]+)/.exec(account!)![1],
    [...account!.matchAll(/<SellOrder>[\s\S]*?<Amount>([^<]+)<\/Amount>\s*<SellBy>([^<]+)/g)].map((m) => `sell ${m[1]} by ${m[2]}`),
    [...account!.matchAll(/<Payout>\s*<Amount>([^<]+)<\/Amount>\s*<PayBy>([^<]+)<\/PayBy>\s*<Installment>(\d+)<\/Installment>\s*<Final>(\w+)<\/Final>\s*<ToAccount>(\d+)/g)]
      .map((m) => `pay ${m[1]} by ${m[2]}, installment ${m[3]}, final ${m[4]}, to ${m[5]}`),
  ]);
}
