/**
 * Every depot-gateway command that writes to the ledger, run as an operator runs it (a
 * child process, a config file, no gateway answering, so in-process) on both databases:
 * the embedded one (PGlite in the data folder, as with no databaseUrl) and PostgreSQL.
 * One ledger per database, from nothing to a payout run: migrate (on a data folder that
 * does not exist yet), submit (a custodian's Holdings, an employer's SalaryAdjustment),
 * replay, applications approve and reject, powers-of-attorney grant and revoke,
 * company-signatories register, rule and revoke, withdrawals register, approve (which
 * orders) and reject, payout-start, debit-run, insurance-end (a death, with its death
 * benefit), death-benefit (its beneficiary's account) and payout-run (the first
 * installment of the payout started, and the death benefit: the custodian's sell-all and
 * payout to the beneficiary, the insurer's 1 % in a pain.001 payment order, which
 * payment-orders lists). Each must exit 0 and
 * leave its rows, read back from the ledger after the command has exited (the embedded
 * folder opened in this process between commands). A second decision on an application
 * or a withdrawal, a second revocation, a second end and a beneficiary changed after the
 * run ordered the benefit are refused with their codes,
 * and both ledgers end with the same rows.
 *
 * What the commands need and no command makes is put in the ledger directly: the dead
 * message (markDead, as the worker's last attempt does), the custodian's values at the
 * end of Q3, a validated withdrawal account, the signatures (BankID in the REST flow);
 * the applications under review are made through the REST API by a gateway in this
 * process and signed by the policyholder with BankID on the local BankID server (the
 * signature sends them to review), the gateway closed before the commands run.
 *
 * Why both: on the embedded database (one connection) a command that used the outer
 * database handle inside a transaction hung for good, while on PostgreSQL it passed. The
 * ledger now refuses that use at once (OUTER_HANDLE_IN_TRANSACTION,
 * src/ledger/transaction-guard.ts), so a command walking such a path fails here on both;
 * one that hangs all the same is killed after COMMAND_LIMIT_MS and named.
 */
import { describe, test, beforeAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { hashSecret } from '../src/config/secret-hash.ts';
import { stockholmDate } from '../src/core/calendar-date.ts';
import { addMonths } from '../src/core/payout-plan.ts';
import type { Database } from '../src/ledger/database.ts';
import { markDead } from '../src/ledger/messages/messages.repository.ts';
import { openPgliteDatabase } from '../src/ledger/pglite.database.ts';
import { openPostgresDatabase } from '../src/ledger/postgres.database.ts';
import { submitSigned } from './support/application-signing.ts';
import { startTestBankId } from './support/bankid.ts';
import { createTestDatabase, startTestGateway, testSettings } from './support/harness.ts';
import { runCli, writeConfigFile } from './support/processes.ts';

type Engine = 'embedded' | 'postgres';

/** Who an in-process change is recorded under: the account that ran the command. */
const IN_PROCESS = `cli:${userInfo().username}`;
/**
 * Far longer than any command takes: 4–6 s each from the sources on a 2-core machine,
 * migrate on a new embedded folder 15–30 s, and up to 70 s each while other test runs
 * load the machine.
 */
const COMMAND_LIMIT_MS = 180_000;
/** How many commands run at once on PostgreSQL: more only takes CPU from the embedded walk, which runs one at a time. */
const SIDE_BY_SIDE = 3;
/**
 * Both walks take some 280 CPU-seconds (52 commands at about 5 s each from the sources):
 * about 4 minutes on a 2-core machine that other test runs keep busy, and over ten when
 * they keep it very busy (signing an application adds three requests a signatory).
 */
const WALK_TIMEOUT_MS = 900_000;
const FIRM = '5565555553';
const OTHER_FIRM = '5567777775';
const ANNA = '197001011233';
const EMPLOYER = '5561234567';
const FIA = { pin: '198807141232', name: 'Fia Fransson' };
const SEB_ACCOUNT = '50001234560';
/** The death benefit's beneficiary (a Handelsbanken account) and the insurer's own account its 1 % is paid from. */
const BENEFICIARY = { name: 'Greta Andersson', account: '6000123456789' };
const INSURER_ACCOUNT = { name: 'Test Försäkring AB', iban: 'SE4550000000058398257466', bic: 'ESSESESS' };
/** Single premium above the review limit: the rules send the application to a person. */
const APPLICATION = {
  productId: 'KF-DEPA', advisorCode: 'ADV-001', policyholder: { id: ANNA }, insured: { id: ANNA },
  premium: { single: '2000000.00' }, funds: [{ isin: 'SE000DEPA010', percent: 100 }],
  custodianId: 'demo-custodian', beneficiary: { choice: 'standard' }, coverages: { repaymentProtection: true, premiumWaiver: false },
};

interface Run {
  readonly args: readonly string[];
  readonly code: number | string;
  readonly stdout: string;
  readonly stderr: string;
}

/** What a walk ends with, free of ids and times: the two databases must agree on it. */
interface Walk {
  readonly exits: readonly string[];
  readonly ledger: Record<string, unknown>;
}

/** Runs one command to its end, or kills it after COMMAND_LIMIT_MS and says it hung. */
async function runCommand(config: string, args: readonly string[]): Promise<Run> {
  const child = runCli([...args, '--config', config]);
  let stdout = '';
  let stderr = '';
  child.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), COMMAND_LIMIT_MS)));
  const code = await Promise.race([child.exited, limit]);
  clearTimeout(timer);
  if (code === 'hung') {
    child.child.kill('SIGKILL');
    await child.exited;
    throw new Error(`depot-gateway ${args.join(' ')} had not exited after ${COMMAND_LIMIT_MS / 1000} s; killed. Output:\n${child.output()}`);
  }
  return { args, code, stdout, stderr };
}

/** One ledger, from an empty database to a payout run, every writing command in-process. */
async function walk(engine: Engine): Promise<Walk> {
  const folder = await mkdtemp(join(tmpdir(), `dg-cli-writes-${engine}-`));
  const dataDir = join(folder, 'data');
  const database = engine === 'postgres' ? await createTestDatabase() : undefined;
  const exits: string[] = [];
  try {
    // Port 1 answers nobody: every command works in-process.
    const config = await writeConfigFile(folder, testSettings(dataDir, { ...(database ? { databaseUrl: database.url } : {}), port: 1, logLevel: 'warn', insurerAccount: INSURER_ACCOUNT }));
    const say = (run: Run) => `${engine}: depot-gateway ${run.args.join(' ')} exited ${run.code}\n${run.stderr}${run.stdout.slice(0, 2000)}`;
    /** Commands of one step: one after another on the embedded database (one process at a time), side by side on PostgreSQL. */
    const step = async (...commands: (readonly string[])[]): Promise<Run[]> => {
      const runs = await inParallel(commands, database ? SIDE_BY_SIDE : 1, (args) => runCommand(config, args));
      for (const run of runs) exits.push(`${commandName(run.args)}: ${run.code}${run.code === 0 ? '' : ` ${/^depot-gateway: ([A-Z_]+):/.exec(run.stderr)?.[1] ?? run.stderr}`}`);
      return runs;
    };
    const succeeded = (run: Run): string => {
      assert.equal(run.code, 0, say(run));
      return run.stdout;
    };
    const json = <T>(run: Run): T => JSON.parse(succeeded(run)) as T;
    const refused = (run: Run, code: string, text: RegExp) => {
      assert.equal(run.code, 1, say(run));
      assert.equal(run.stdout, '', say(run));
      assert.match(run.stderr, new RegExp(`^depot-gateway: ${code}: `), say(run));
      assert.match(run.stderr, text, say(run));
    };
    /** The ledger opened in this process, between commands (the embedded folder serves one process at a time). */
    const ledger = async <T>(work: (db: Database) => Promise<T>): Promise<T> => {
      const db = database ? openPostgresDatabase({ url: database.url, max: 2 }) : await openPgliteDatabase(join(dataDir, 'pglite'));
      try {
        return await work(db);
      } finally {
        await db.close();
      }
    };
    const rows = async <Row extends object>(db: Database, text: string, values: unknown[] = []): Promise<Row[]> => (await db.query<Row>(text, values)).rows;
    const outbox = join(dataDir, 'counterparties', 'demo-custodian', 'outbox');
    const today = stockholmDate(new Date());
    const payoutMonth = addMonths(today.slice(0, 7), 1);

    // migrate on an empty database (the embedded one: a data folder that does not exist yet); the demo config seeds the demo ledger.
    const [migrated] = await step(['migrate']);
    const applied = /^applied migrations ([\d, ]+)\n$/.exec(succeeded(migrated!));
    assert.ok(applied, say(migrated!));
    // submit: a custodian's Holdings, applied in-process; its values are what the withdrawal and the payout are computed on.
    const [submitted] = await step(['submit', 'fixtures/Holdings/valid/all-accounts.xml', '--from', 'demo-custodian', '--json']);
    const receipt = json<{ messageId: string; status: string; outcome: string }>(submitted!);
    assert.deepEqual([receipt.status, receipt.outcome], ['applied', 'accepted'], say(submitted!));
    const [response] = (await readdir(outbox)).filter((name) => name.endsWith('.HoldingsResponse.xml'));
    assert.ok(response, `${engine}: the HoldingsResponse is in the outbox`);

    const review = await ledger(async (db) => {
      const migrations = await rows<{ n: number }>(db, 'SELECT count(*)::int AS n FROM schema_migrations');
      assert.equal(migrations[0]!.n, applied[1]!.split(', ').length, `${engine}: every migration migrate named is recorded`);
      assert.deepEqual(await rows(db, `SELECT name FROM agreements WHERE agreement_number = 'AGR-1001'`), [{ name: 'Demo Employer AB pension plan' }], `${engine}: the demo ledger seeded`);
      const values = await rows(db, 'SELECT account_number, as_of::text AS as_of FROM custody_valuations WHERE message_id = $1 ORDER BY account_number', [receipt.messageId]);
      assert.deepEqual(values, ['DEPA-100001', 'DEPA-100002', 'DEPA-100003'].map((account_number) => ({ account_number, as_of: '2026-11-19' })), `${engine}: submit's values`);

      // A dead message to replay: its response could not be delivered (not in the outbox, not recorded as delivered).
      await rm(join(outbox, response));
      await db.query('UPDATE responses SET delivered_at = NULL WHERE message_id = $1', [receipt.messageId]);
      assert.ok(await db.transaction((tx) => markDead(tx, receipt.messageId, 'deliver', 'DELIVERY_FAILED', 'the outbox could not be written')));
      // Payout of INS-100001 may begin this month; the custodian's values at the end of Q3 and today.
      await db.query(`UPDATE insurances SET payout_from = $1::date WHERE insurance_number = 'INS-100001'`, [`${today.slice(0, 7)}-01`]);
      await db.query(`INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
                      SELECT account_number, '2026-09-30', 5000, 95000, 100000, 1, 'cli-writes-test' FROM custody_accounts WHERE custodian_id = 'demo-custodian'
                      UNION ALL SELECT 'DEPA-100006', $1::date, 2000, 118000, 120000, 1, 'cli-writes-test'`, [today]);
      // The employer (INS-100006's policyholder) and Anna (INS-100001's insured, whose payout is started) have the account validated.
      await db.query(`INSERT INTO withdrawal_accounts (registration_id, customer_id, account_digits, clearing_number, account_number, bank_name, registered_at, registered_by, validation_day, status, decided_at)
                      VALUES ('WA-cli-writes', $1, $2, '5000', '1234560', 'SEB', now(), 'client:firm', $3::date, 'validated', now()),
                             ('WA-cli-writes-anna', $4, $2, '5000', '1234560', 'SEB', now(), 'client:firm', $3::date, 'validated', now())`, [EMPLOYER, SEB_ACCOUNT, today, ANNA]);
      // Two applications under review, made by the advisor firm over the REST API and signed by Anna.
      const testBankId = await startTestBankId();
      const firm = await startTestGateway({
        db, roles: ['api'], inline: true, clock: () => new Date(),
        settings: { api: { clients: [{ id: 'firm', kind: 'advisor-firm', organisationNumber: FIRM, secretHash: await hashSecret('firm-secret') }] }, bankid: await testBankId.settings() },
      });
      try {
        const token = await firm.http!.inject({
          method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials&client_id=firm&client_secret=firm-secret',
        });
        const authorization = `Bearer ${(token.json() as { access_token: string }).access_token}`;
        const apply = async () => {
          const signed = await submitSigned<{ applicationId: string; status: string; signCaseId: string }>(
            (options) => firm.http!.inject({ ...options, headers: { ...options.headers, authorization } }), testBankId.server, '/InsuranceApplication', APPLICATION);
          assert.equal(signed.status, 'under-review', JSON.stringify(signed));
          return signed.applicationId;
        };
        return { approve: await apply(), reject: await apply() };
      } finally {
        await firm.destroy();
        await testBankId.close();
      }
    });

    const payoutStart = ['payout-start', 'INS-100001', '--period', '5y', '--first-month', payoutMonth, '--account', SEB_ACCOUNT, '--json'];
    const [replayed, salaries, approved, rejected, granted, registeredSignatory, rule, started, debited] = await step(
      ['replay', receipt.messageId],
      // An employer's plan-administration document, applied set-based in the same process.
      ['submit', 'fixtures/SalaryAdjustment/valid/multi-item.xml', '--from', 'demo-employer', '--json'],
      ['applications', 'approve', review.approve, '--reason', 'source of funds checked', '--json'],
      ['applications', 'reject', review.reject, '--reason', 'no source of funds', '--json'],
      ['powers-of-attorney', 'grant', '--customer', ANNA, '--holder', OTHER_FIRM, '--kind', 'information', '--from', '2026-11-01', '--json'],
      ['company-signatories', 'register', '--organisation', EMPLOYER, '--personal-number', FIA.pin, '--name', FIA.name, '--from', '2026-01-01', '--json'],
      ['company-signatories', 'rule', '--organisation', EMPLOYER, '--required', '1', '--json'],
      payoutStart,
      ['debit-run', '--year', '2026', '--quarter', '3', '--json'],
    );
    assert.deepEqual(json(replayed!), { messageId: receipt.messageId, replayedFrom: 'deliver', status: 'applied' }, say(replayed!));
    assert.ok((await readdir(outbox)).includes(response), `${engine}: replay delivered the response again`);
    const salaryReceipt = json<{ messageId: string; status: string; outcome: string }>(salaries!);
    assert.deepEqual([salaryReceipt.status, salaryReceipt.outcome], ['applied', 'accepted'], say(salaries!));
    assert.deepEqual(json(approved!), { applicationId: review.approve, status: 'issued' });
    assert.deepEqual(json(rejected!), { applicationId: review.reject, status: 'rejected' });
    const power = json<{ id: string; createdBy: string }>(granted!);
    assert.equal(power.createdBy, IN_PROCESS);
    const signatory = json<{ id: string; personalNumber: string; createdBy: string }>(registeredSignatory!);
    assert.deepEqual([signatory.personalNumber, signatory.createdBy], [FIA.pin, IN_PROCESS]);
    assert.equal(json<{ requiredSignatures: number }>(rule!).requiredSignatures, 1);
    const registered = json<{ insuranceNumber: string; period: string; firstMonth: string; withdrawalAccount: string; registeredBy: string }>(started!);
    assert.deepEqual([registered.insuranceNumber, registered.period, registered.firstMonth, registered.withdrawalAccount, registered.registeredBy], ['INS-100001', '5y', payoutMonth, SEB_ACCOUNT, IN_PROCESS]);
    const debitRun = json<{ runKey: string; created: { custodianId: string; accounts: number }[]; delivered: unknown[] }>(debited!);
    assert.deepEqual([debitRun.runKey, debitRun.created.map((c) => c.custodianId), debitRun.delivered.length], ['2026-Q3', ['demo-custodian'], 1], say(debited!));

    // Withdrawals from INS-100006, whose policyholder is the employer: Fia signs for it, Anna as the insured.
    const withdrawal = (amount: string, channel: string) =>
      ['withdrawals', 'register', '--insurance', 'INS-100006', '--amount', amount, '--account', SEB_ACCOUNT, '--channel', channel, '--reference', `form ${amount}`, '--json'];
    const [decidedAgain, revoked, first, second] = await step(
      ['applications', 'approve', review.reject, '--reason', 'once more'],
      ['powers-of-attorney', 'revoke', power.id, '--reason', 'the customer withdrew it', '--json'],
      withdrawal('5000.00', 'paper-form'),
      withdrawal('2500.00', 'e-service'),
    );
    refused(decidedAgain!, 'RESOURCE_NOT_FOUND', new RegExp(`No application ${review.reject} is under review`));
    assert.equal(json<{ revokedBy: string }>(revoked!).revokedBy, IN_PROCESS);
    const [ordered, declined] = [first!, second!].map((run) => json<{ requestId: string; signCaseId: string; status: string }>(run));
    assert.deepEqual([ordered!.status, declined!.status], ['requested', 'requested']);

    const [revokedAgain, revokedSignatory, rejectedWithdrawal] = await step(
      ['powers-of-attorney', 'revoke', power.id],
      // From now on: the sign cases already made keep her.
      ['company-signatories', 'revoke', signatory.id, '--organisation', EMPLOYER, '--reason', 'left the board', '--json'],
      ['withdrawals', 'reject', declined!.requestId, '--reason', 'the employer asked us to', '--json'],
    );
    refused(revokedAgain!, 'RESOURCE_NOT_FOUND', new RegExp(`No power of attorney ${power.id} in force to revoke`));
    assert.equal(json<{ revokedBy: string }>(revokedSignatory!).revokedBy, IN_PROCESS);
    assert.deepEqual(json(rejectedWithdrawal!), { requestId: declined!.requestId, status: 'rejected' });

    // Every signatory of the first request signs (with BankID in the REST API's flow; here straight into its sign case).
    await ledger(async (db) => {
      const signers = await rows<{ role: string; personal_number: string }>(db, 'SELECT role, personal_number FROM sign_case_signatories WHERE sign_case_id = $1 ORDER BY role', [ordered!.signCaseId]);
      assert.deepEqual(signers, [{ role: 'company-signatory', personal_number: FIA.pin }, { role: 'insured', personal_number: ANNA }], `${engine}: who signs the first request`);
      await db.query(`UPDATE sign_case_signatories SET signed_at = now(), order_ref = 'cli-writes-' || role WHERE sign_case_id = $1`, [ordered!.signCaseId]);
    });
    const [approvedWithdrawal] = await step(['withdrawals', 'approve', ordered!.requestId, '--reason', 'signed by the employer and the insured', '--json']);
    assert.deepEqual(json(approvedWithdrawal!), { requestId: ordered!.requestId, status: 'ordered' });

    const ending = ['insurance-end', 'INS-100006', '--cause', 'death', '--date', today, '--json'];
    const [approvedAgain, ended] = await step(['withdrawals', 'approve', ordered!.requestId, '--reason', 'once more'], ending);
    refused(approvedAgain!, 'RESOURCE_NOT_FOUND', new RegExp(ordered!.requestId));
    const end = json<{ endDate: string; cause: string; endedBy: string; deathBenefit?: { custodyValue: string | null } }>(ended!);
    assert.deepEqual([end.endDate, end.cause, end.endedBy, end.deathBenefit?.custodyValue], [today, 'death', IN_PROCESS, '120000.00'], say(ended!));

    // Its beneficiary, recorded after the death: from now on the payout run orders the benefit.
    const naming = ['death-benefit', 'INS-100006', '--beneficiary-name', BENEFICIARY.name, '--beneficiary-account', BENEFICIARY.account, '--json'];
    const [endedAgain, named] = await step(ending, naming);
    refused(endedAgain!, 'INSURANCE_ALREADY_ENDED', /INS-100006/);
    const benefit = json<{ beneficiary: { name: string; account: string; recordedBy: string }; status: string }>(named!);
    assert.deepEqual([benefit.beneficiary.name, benefit.beneficiary.account, benefit.beneficiary.recordedBy, benefit.status], [BENEFICIARY.name, BENEFICIARY.account, IN_PROCESS, 'awaiting-run'], say(named!));

    const [paidOut] = await step(['payout-run', '--month', payoutMonth, '--json']);
    const payoutRun = json<{ runKey: string; created: { custodianId: string; accounts: number }[]; delivered: unknown[] }>(paidOut!);
    assert.deepEqual([payoutRun.runKey, payoutRun.created.map((c) => ({ custodianId: c.custodianId, accounts: c.accounts })), payoutRun.delivered.length],
      [payoutMonth, [{ custodianId: 'demo-custodian', accounts: 2 }], 1], `${say(paidOut!)}: the first installment and the death benefit`);
    const [renamed, listed] = await step(naming, ['payment-orders', '--json']);
    refused(renamed!, 'DEATH_BENEFIT_ALREADY_ORDERED', new RegExp(`payout run ${payoutMonth}, paid to ${BENEFICIARY.account}`));
    const orders = succeeded(listed!).trim().split('\n').map((line) => JSON.parse(line) as { paymentOrderId: string; controlSum: string; insuranceNumbers: string[]; runKey: string });
    assert.deepEqual(orders.map((o) => [o.controlSum, o.insuranceNumbers, o.runKey]), [['1200.00', ['INS-100006'], payoutMonth]], say(listed!));

    // What each command left in the ledger, read back once they have all exited.
    const after = await ledger(async (db) => ({
      salaries: await rows(db, `SELECT count(*)::int AS n, min(effective_date)::text AS effective FROM salaries WHERE message_id = $1`, [salaryReceipt.messageId]),
      replay: await rows(db, `SELECT m.status, m.dead_stage, (SELECT count(*)::int FROM message_events e WHERE e.message_id = m.id AND e.reason = 'replayed from deliver') AS replays,
                                     r.delivered_at IS NOT NULL AS delivered
                                FROM messages m JOIN responses r ON r.message_id = m.id WHERE m.id = $1`, [receipt.messageId]),
      // The decisions; the issued insurance's number is in the `issued` change's reason, so only its presence is compared.
      applications: await rows(db, `SELECT c.application_id = $1 AS approved_one, c.status, c.changed_by, CASE WHEN c.status = 'issued' THEN c.reason LIKE 'insurance INS-%' END AS names_insurance,
                                           CASE WHEN c.status <> 'issued' THEN c.reason END AS reason
                                      FROM application_status_changes c WHERE c.application_id = ANY($2::text[]) AND c.status NOT IN ('received', 'awaiting-signature', 'under-review')
                                     ORDER BY approved_one DESC, c.id`, [review.approve, [review.approve, review.reject]]),
      issued: await rows(db, `SELECT a.status, i.product_code, i.policyholder FROM applications a JOIN insurances i ON i.insurance_number = a.insurance_number
                               WHERE a.application_id = $1 AND i.created_by_message = $1`, [review.approve]),
      powers: await rows(db, `SELECT change, changed_by, details->>'reason' AS reason FROM power_of_attorney_changes WHERE power_of_attorney_id = $1::bigint ORDER BY id`, [power.id]),
      signatories: await rows(db, 'SELECT personal_number, created_by, revoked_by FROM company_signatories WHERE organisation_number = $1 ORDER BY id', [EMPLOYER]),
      signatoryChanges: await rows(db, `SELECT change, changed_by FROM company_signatory_changes WHERE organisation_number = $1 ORDER BY change, id`, [EMPLOYER]),
      rule: await rows(db, 'SELECT required_signatures, set_by FROM company_signing_rules WHERE organisation_number = $1', [EMPLOYER]),
      withdrawals: await rows(db, `SELECT r.amount::text AS amount, r.status, r.decision, r.decided_by, r.run_key = 'withdrawal-' || r.request_id AS own_run,
                                          (SELECT string_agg(e.event || ' by ' || e.by, ', ' ORDER BY e.id) FROM withdrawal_request_events e WHERE e.request_id = r.request_id) AS history
                                     FROM withdrawal_requests r WHERE r.request_id = ANY($1::text[]) ORDER BY r.amount DESC`, [[ordered!.requestId, declined!.requestId]]),
      withdrawalOrder: await rows(db, `SELECT d.kind, o.delivered_at IS NOT NULL AS delivered FROM debit_runs d JOIN outgoing_documents o ON o.document_id = d.document_id WHERE d.run_key = $1`, [`withdrawal-${ordered!.requestId}`]),
      end: await rows(db, `SELECT i.end_date::text AS end_date, i.end_cause, i.ended_by, b.custody_value::text AS custody_value, b.recorded_by
                             FROM insurances i JOIN death_benefits b ON b.insurance_number = i.insurance_number WHERE i.insurance_number = 'INS-100006'`),
      deathBenefit: await rows(db, `SELECT b.beneficiary_name, b.beneficiary_account, b.beneficiary_recorded_by, b.run_key = $1 AS ordered_by_run, b.insurer_amount::text AS insurer_amount,
                                           o.control_sum::text AS control_sum, o.transactions, o.requested_execution_date = b.pay_by AS paid_with_custodian,
                                           (SELECT count(*)::int FROM debit_lines l WHERE l.run_key = $1 AND l.insurance_number = b.insurance_number AND l.basis = 'DeathBenefit') AS sell_orders,
                                           (SELECT count(*)::int FROM death_benefit_beneficiaries h WHERE h.insurance_number = b.insurance_number) AS recordings
                                      FROM death_benefits b JOIN payment_orders o ON o.payment_order_id = b.payment_order_id WHERE b.insurance_number = 'INS-100006'`, [payoutMonth]),
      payout: await rows(db, `SELECT p.start_month, p.months, p.withdrawal_account, p.registered_by, o.month, o.installment, o.final
                                FROM payouts p LEFT JOIN payout_orders o ON o.insurance_number = p.insurance_number WHERE p.insurance_number = 'INS-100001'`),
      runs: await rows(db, `SELECT d.run_key = $1 AS payout_month, d.kind, o.delivered_at IS NOT NULL AS delivered, (SELECT count(*)::int FROM debit_lines l WHERE l.run_key = d.run_key) AS lines
                              FROM debit_runs d JOIN outgoing_documents o ON o.document_id = d.document_id WHERE d.run_key IN ('2026-Q3', $1) ORDER BY d.kind`, [payoutMonth]),
    }));
    const sameOutbox = (await readdir(outbox)).filter((name) => name.endsWith('.DebitAccounts.xml')).length;
    assert.deepEqual(after.salaries, [{ n: 5, effective: '2026-04-01' }], `${engine}: submit of a SalaryAdjustment`);
    assert.deepEqual(after.replay, [{ status: 'applied', dead_stage: null, replays: 1, delivered: true }], `${engine}: replay`);
    assert.deepEqual(after.applications, [
      { approved_one: true, status: 'approved', changed_by: IN_PROCESS, names_insurance: null, reason: 'source of funds checked' },
      { approved_one: true, status: 'issued', changed_by: 'gateway', names_insurance: true, reason: null },
      { approved_one: false, status: 'rejected', changed_by: IN_PROCESS, names_insurance: null, reason: 'no source of funds' },
    ], `${engine}: applications approve and reject`);
    assert.deepEqual(after.issued, [{ status: 'issued', product_code: 'KF-DEPA', policyholder: ANNA }], `${engine}: the approved application is an insurance`);
    assert.deepEqual(after.powers, [{ change: 'granted', changed_by: IN_PROCESS, reason: null }, { change: 'revoked', changed_by: IN_PROCESS, reason: 'the customer withdrew it' }], `${engine}: powers-of-attorney`);
    assert.deepEqual(after.signatories, [{ personal_number: FIA.pin, created_by: IN_PROCESS, revoked_by: IN_PROCESS }], `${engine}: company-signatories register and revoke`);
    assert.deepEqual(after.signatoryChanges, [
      { change: 'registered', changed_by: IN_PROCESS }, { change: 'revoked', changed_by: IN_PROCESS }, { change: 'rule-set', changed_by: IN_PROCESS },
    ], `${engine}: company-signatories audit`);
    assert.deepEqual(after.rule, [{ required_signatures: 1, set_by: IN_PROCESS }], `${engine}: company-signatories rule`);
    assert.deepEqual(after.withdrawals, [
      { amount: '5000.00', status: 'ordered', decision: 'approved', decided_by: IN_PROCESS, own_run: true, history: `requested by ${IN_PROCESS}, approved by ${IN_PROCESS}, ordered by withdrawal-order` },
      { amount: '2500.00', status: 'rejected', decision: 'rejected', decided_by: IN_PROCESS, own_run: null, history: `requested by ${IN_PROCESS}, rejected by ${IN_PROCESS}` },
    ], `${engine}: withdrawals register, approve and reject`);
    assert.deepEqual(after.withdrawalOrder, [{ kind: 'payout', delivered: true }], `${engine}: the approved withdrawal's DebitAccounts, delivered`);
    assert.deepEqual(after.end, [{ end_date: today, end_cause: 'death', ended_by: IN_PROCESS, custody_value: '120000.00', recorded_by: IN_PROCESS }], `${engine}: insurance-end and its death benefit`);
    assert.deepEqual(after.deathBenefit, [{
      beneficiary_name: BENEFICIARY.name, beneficiary_account: BENEFICIARY.account, beneficiary_recorded_by: IN_PROCESS, ordered_by_run: true, insurer_amount: '1200.00',
      control_sum: '1200.00', transactions: 1, paid_with_custodian: true, sell_orders: 1, recordings: 1,
    }], `${engine}: death-benefit, and payout-run's order to the custodian and the insurer's payment order`);
    assert.deepEqual(after.payout, [{ start_month: payoutMonth, months: 60, withdrawal_account: SEB_ACCOUNT, registered_by: IN_PROCESS, month: payoutMonth, installment: 1, final: false }], `${engine}: payout-start and its first installment`);
    assert.deepEqual(after.runs.map((r) => ({ ...r, lines: (r as { lines: number }).lines > 0 })), [
      { payout_month: false, kind: 'debit', delivered: true, lines: true }, { payout_month: true, kind: 'payout', delivered: true, lines: true },
    ], `${engine}: debit-run and payout-run stored and delivered`);
    assert.equal(sameOutbox, 3, `${engine}: three DebitAccounts files in the custodian's outbox (debit run, withdrawal, payout run)`);
    return { exits, ledger: after };
  } finally {
    await rm(folder, { recursive: true, force: true });
    await database?.drop();
  }
}

/** A command without its ids and options (`applications approve`), to compare the two walks. */
function commandName(args: readonly string[]): string {
  const words: string[] = [];
  for (const arg of args) {
    if (!/^[a-z][a-z-]*$/.test(arg)) break;
    words.push(arg);
  }
  return words.join(' ');
}

/** `work` on every item, at most `limit` at a time; the results in the items' order. */
async function inParallel<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

describe('CLI commands that write to the ledger, in-process on the embedded database and on PostgreSQL', () => {
  // Both walks run at once from the start (each its own ledger, data folder and processes); each test awaits its own.
  const walks = new Map<Engine, Promise<{ walk?: Walk; error?: unknown }>>();
  beforeAll(() => {
    for (const engine of ['embedded', 'postgres'] as const) walks.set(engine, walk(engine).then((result) => ({ walk: result }), (error: unknown) => ({ error })));
  });
  const outcome = async (engine: Engine): Promise<Walk> => {
    const { walk: result, error } = await walks.get(engine)!;
    if (error !== undefined) throw error;
    return result!;
  };

  test('embedded database (PGlite in the data folder): every writing command exits 0 and leaves its rows; repeats are refused', async () => {
    await outcome('embedded');
  }, WALK_TIMEOUT_MS);

  test('PostgreSQL: every writing command exits 0 and leaves its rows; repeats are refused', async () => {
    await outcome('postgres');
  }, WALK_TIMEOUT_MS);

  test('both databases: the same exit codes, refusals and ledger rows', async () => {
    const [embedded, postgres] = await Promise.all([walks.get('embedded')!, walks.get('postgres')!]);
    if (!embedded.walk || !postgres.walk) return void assert.fail('compared once both walks have passed (see their tests)');
    assert.deepEqual([...embedded.walk.exits].sort(), [...postgres.walk.exits].sort());
    assert.deepEqual(embedded.walk.ledger, postgres.walk.ledger);
  }, WALK_TIMEOUT_MS);
});
