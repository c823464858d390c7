/**
 * Staff decide applications under review and keep the register of powers of attorney
 * from the command line, as an operator runs it (a child process, a config file, real
 * PostgreSQL): in-process when no gateway answers (each change recorded under
 * `cli:<account>`), and through a running gateway's staff API (signed in with
 * DEPOT_GATEWAY_STAFF_PASSWORD, the config holding only a hash; recorded under the staff
 * user) when one does. The applications are submitted by an advisor firm over the REST
 * API and signed by the policyholder with BankID on the local BankID server, which sends
 * them to review; what the commands did, by whom and when, is read back from the ledger.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { hashSecret } from '../src/config/secret-hash.ts';
import { submitSigned } from './support/application-signing.ts';
import { startTestBankId, type TestBankId } from './support/bankid.ts';
import { createTestDatabase, deleteQueues, startTestGateway, testSettings, waitFor, type TestDatabase, type TestGateway } from './support/harness.ts';
import { freePort, runCli, runCliToEnd, writeConfigFile } from './support/processes.ts';

const STAFF_PASSWORD = 'desk-password-1';
/**
 * Each command is a process started from the sources (some 5 s on an idle 2-core machine,
 * over a minute while other test runs load it), and a test runs a dozen rounds of them.
 */
const TEST_TIMEOUT_MS = 900_000;
/** The gateway's own start, from the sources, on a loaded machine. */
const GATEWAY_START_MS = 180_000;
const FIRM = '5565555553';
const OTHER_FIRM = '5567777775';
const ANNA = '197001011233';
const BERTIL = '198002021239';
/** Who a change is recorded under: the staff user signed in through the API, or the account that ran the command in-process. */
const STAFF_DESK = 'staff:desk';
const IN_PROCESS = `cli:${userInfo().username}`;
/** An application the rules send to a person: its single premium is above the review limit. */
const application = {
  productId: 'KF-DEPA', advisorCode: 'ADV-001', policyholder: { id: ANNA }, insured: { id: ANNA },
  premium: { single: '2000000.00' }, funds: [{ isin: 'SE000DEPA010', percent: 100 }],
  custodianId: 'demo-custodian', beneficiary: { choice: 'standard' }, coverages: { repaymentProtection: true, premiumWaiver: false },
};

/** An application as its firm reads it back once signed. */
interface Signed { applicationId: string; status: string; signCaseId: string; signBy: string }
interface Summary { applicationId: string; kind: string; status: string; customerId: string; insuranceId: string | null }
interface Power {
  id: string; customerId: string; holderOrganisationNumber: string; kind: string; validFrom: string; validTo: string | null;
  createdAt: string; createdBy: string; revokedAt: string | null; revokedBy: string | null;
}

describe('applications and powers of attorney from the CLI', () => {
  let database: TestDatabase;
  let folder: string;
  let config: string;
  let queuePrefix: string;
  let port: number;
  /** The advisor firm's side: a gateway in this process on the same database, answering the REST API. */
  let firmSide: TestGateway;
  let testBankId: TestBankId;
  let token: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    folder = await mkdtemp(join(tmpdir(), 'dg-cli-applications-'));
    port = await freePort();
    const api = { clients: [{ id: 'firm', kind: 'advisor-firm', organisationNumber: FIRM, secretHash: await hashSecret('firm-secret') }] };
    testBankId = await startTestBankId();
    firmSide = await startTestGateway({ database, roles: ['api'], settings: { api, bankid: await testBankId.settings() } });
    const settings = testSettings(join(folder, 'data'), {
      databaseUrl: database.url, port, logLevel: 'warn', staff: { users: [{ username: 'desk', passwordHash: await hashSecret(STAFF_PASSWORD) }] },
    });
    queuePrefix = settings.queuePrefix as string;
    config = await writeConfigFile(folder, settings);
    const answer = await firmSide.http!.inject({
      method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=client_credentials&client_id=firm&client_secret=firm-secret',
    });
    token = (answer.json() as { access_token: string }).access_token;
  });
  afterAll(async () => {
    await firmSide.destroy();
    await testBankId.close();
    await database.drop();
    await deleteQueues(queuePrefix);
    await rm(folder, { recursive: true, force: true });
  });

  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCliToEnd([...args, '--config', config], env);
  const jsonLines = <T>(stdout: string): T[] => stdout.trim().split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as T);
  const sql = async <Row extends object>(text: string, values: unknown[]): Promise<Row[]> => (await firmSide.deps.db.query<Row>(text, values)).rows;
  /** Submitted by the firm and signed by Anna: under review once signed. */
  const submitForReview = async (): Promise<Signed> => {
    const firm = (options: InjectOptions) => firmSide.http!.inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${token}` } });
    const saved = await submitSigned<Signed>(firm, testBankId.server, '/InsuranceApplication', application);
    assert.equal(saved.status, 'under-review', JSON.stringify(saved));
    return saved;
  };
  /** Submitted by the firm and not signed: awaiting Anna's signature. */
  const submitUnsigned = async (): Promise<Signed> => {
    const answer = await firmSide.http!.inject({ method: 'POST', url: '/InsuranceApplication', headers: { authorization: `Bearer ${token}` }, payload: application });
    assert.equal(answer.statusCode, 201, answer.body);
    const saved = answer.json() as Signed;
    assert.equal(saved.status, 'awaiting-signature');
    return saved;
  };
  const decisions = (id: string) =>
    sql<{ status: string; changed_by: string; reason: string | null; changed_at: Date }>(
      'SELECT status, changed_by, reason, changed_at FROM application_status_changes WHERE application_id = $1 ORDER BY id', [id]);
  /** A command's change happened while it ran: between `from` and now. */
  const assertDuring = (at: Date | string, from: Date, what: string) => {
    const time = new Date(at).getTime();
    assert.ok(time >= from.getTime() && time <= Date.now(), `${what} at ${new Date(at).toISOString()}, while the command ran (from ${from.toISOString()})`);
  };
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  /**
   * list shows both under review, and the unsigned one awaiting signature with who has not signed; one approved (issued
   * in the ledger), one rejected with its reason; a second decision, or one on the unsigned application, exits 1.
   */
  const decideTwo = async (by: string, env: NodeJS.ProcessEnv = {}) => {
    const signed = await submitForReview();
    const approved = signed.applicationId;
    const rejected = (await submitForReview()).applicationId;
    const unsigned = await submitUnsigned();

    // Reading commands side by side: each is a process of its own.
    const [listed, plans, table, shown, waiting, unsignedShown] = await Promise.all([
      cli(['applications', '--status', 'under-review', '--kind', 'insurance', '--json'], env),
      cli(['applications', 'list', '--kind', 'plan', '--json'], env),
      cli(['applications', '--status', 'under-review'], env),
      cli(['applications', 'show', approved, '--json'], env),
      cli(['applications', '--status', 'awaiting-signature', '--json'], env),
      cli(['applications', 'show', unsigned.applicationId], env),
    ]);
    assert.equal(listed.code, 0, listed.stderr);
    const rows = jsonLines<Summary>(listed.stdout);
    for (const id of [approved, rejected]) {
      assert.deepEqual(rows.filter((r) => r.applicationId === id).map((r) => [r.kind, r.status, r.customerId, r.insuranceId]), [['insurance', 'under-review', ANNA, null]]);
    }
    assert.ok(rows.every((r) => r.status === 'under-review'));
    assert.deepEqual([plans.code, plans.stdout], [0, ''], 'no plan applications');
    assert.equal(waiting.code, 0, waiting.stderr);
    const waitingRows = jsonLines<Summary>(waiting.stdout);
    assert.deepEqual(waitingRows.filter((r) => [approved, rejected, unsigned.applicationId].includes(r.applicationId)).map((r) => [r.applicationId, r.status, r.insuranceId]),
      [[unsigned.applicationId, 'awaiting-signature', null]], 'only the unsigned one awaits a signature');
    assert.ok(waitingRows.every((r) => r.status === 'awaiting-signature'));
    assert.equal(unsignedShown.code, 0, unsignedShown.stderr);
    assert.match(unsignedShown.stdout, new RegExp(`^${unsigned.applicationId}  insurance KF-DEPA .*\nstatus awaiting-signature\n`));
    assert.match(unsignedShown.stdout, new RegExp(`\\nsignatories \\(sign case ${unsigned.signCaseId}, to be signed by ${unsigned.signBy}\\):\\n {2}ROLE\\s+PERSONNUMMER\\s+SIGNED\\n {2}policyholder\\s+${ANNA}\\s+not yet\\n`));

    assert.equal(table.code, 0, table.stderr);
    const [header, ...lines] = table.stdout.trimEnd().split('\n');
    assert.match(header!, /^ID\s+KIND\s+STATUS\s+SUBMITTED\s+FIRM\s+ADVISOR\s+CUSTOMER\s+PRODUCT\s+ISSUED AS$/);
    const line = lines.find((l) => l.startsWith(approved))!;
    assert.equal(line.indexOf('under-review'), header!.indexOf('STATUS'), `columns aligned:\n${table.stdout}`);
    assert.equal(line.indexOf(FIRM), header!.indexOf('FIRM'));

    assert.equal(shown.code, 0, shown.stderr);
    const detail = JSON.parse(shown.stdout) as {
      applicationId: string; body: { premium: { single: string } }; history: { status: string; by: string; reason: string | null }[];
      signing: { signCaseId: string; signBy: string; signatories: { role: string; personalNumber: string; signedAt: string | null }[] };
    };
    assert.equal(detail.body.premium.single, '2000000.00');
    assert.deepEqual(detail.history.map((h) => [h.status, h.by, h.reason]), [
      ['received', 'advisor:ADV-001', null], ['awaiting-signature', 'gateway', `sign case ${signed.signCaseId}, to be signed by ${signed.signBy}`],
      ['under-review', 'gateway', 'single premium above 1000000 SEK'],
    ]);
    assert.deepEqual([detail.signing.signCaseId, detail.signing.signBy], [signed.signCaseId, signed.signBy]);
    assert.deepEqual(detail.signing.signatories.map((g) => [g.role, g.personalNumber, typeof g.signedAt]), [['policyholder', ANNA, 'string']], 'signed by Anna');

    const approving = new Date();
    const approve = await cli(['applications', 'approve', approved, '--reason', 'source of funds checked'], env);
    assert.equal(approve.code, 0, approve.stderr);
    assert.equal(approve.stdout, `${approved}  issued\n`);
    const [issued] = await sql<{ status: string; insurance_number: string; account: string }>(
      `SELECT a.status, a.insurance_number, i.custody_account AS account FROM applications a JOIN insurances i ON i.insurance_number = a.insurance_number
        WHERE a.application_id = $1 AND i.created_by_message = $1 AND i.policyholder = $2`, [approved, ANNA]);
    assert.equal(issued?.status, 'issued', 'the insurance is in the ledger');
    assert.equal(issued!.account, `DEPA-${issued!.insurance_number.slice(4)}`);
    const approval = (await decisions(approved)).slice(3);
    assert.deepEqual(approval.map((d) => [d.status, d.changed_by, d.reason]), [
      ['approved', by, 'source of funds checked'], ['issued', 'gateway', `insurance ${issued!.insurance_number}`],
    ]);
    for (const change of approval) assertDuring(change.changed_at, approving, change.status);
    const history = await cli(['applications', 'show', approved], env);
    assert.match(history.stdout, new RegExp(`^${approved}  insurance KF-DEPA .*\nstatus issued, issued as ${issued!.insurance_number}\n`));
    assert.match(history.stdout, new RegExp(`\\n {2}\\S+Z\\s+approved\\s+${escaped(by)}\\s+source of funds checked\\n`));
    assert.match(history.stdout, new RegExp(`\\nsignatories \\(sign case ${signed.signCaseId}, to be signed by ${signed.signBy}\\):\\n {2}ROLE\\s+PERSONNUMMER\\s+SIGNED\\n {2}policyholder\\s+${ANNA}\\s+\\S+Z\\n`));

    const reject = await cli(['applications', 'reject', rejected, '--reason', 'no source of funds', '--json'], env);
    assert.equal(reject.code, 0, reject.stderr);
    assert.deepEqual(JSON.parse(reject.stdout), { applicationId: rejected, status: 'rejected' });
    assert.deepEqual({ ...(await decisions(rejected)).at(-1), changed_at: undefined }, { status: 'rejected', changed_by: by, reason: 'no source of funds', changed_at: undefined });
    assert.deepEqual(await sql('SELECT 1 FROM insurances WHERE created_by_message = $1', [rejected]), [], 'nothing issued');

    const unknownId = 'IA-01JZZZZZZZZZZZZZZZZZZZZZZZ';
    const repeats = [['reject', approved], ['approve', rejected], ['approve', unsigned.applicationId], ['approve', unknownId]] as const;
    const [unknown, ...answers] = await Promise.all([cli(['applications', 'show', unknownId], env), ...repeats.map(([decision, id]) => cli(['applications', decision, id, '--reason', 'once more'], env))]);
    for (const [index, [decision, id]] of repeats.entries()) {
      const again = answers[index]!;
      assert.equal(again.code, 1, `${decision} ${id}: ${again.stderr}`);
      assert.equal(again.stdout, '');
      assert.match(again.stderr, new RegExp(`^depot-gateway: RESOURCE_NOT_FOUND: .*No application ${id} is under review\\.`));
    }
    assert.deepEqual([(await decisions(approved)).length, (await decisions(rejected)).length, (await decisions(unsigned.applicationId)).length], [5, 4, 2], 'no decision after the first, none unsigned');
    assert.equal(unknown!.code, 1, 'show of an unknown id');
    assert.match(unknown!.stderr, /RESOURCE_NOT_FOUND/);
  };

  /** A power granted, listed and revoked with a reason; each change audited (who, when); a second revocation exits 1. */
  const keepRegister = async (customer: string, by: string, env: NodeJS.ProcessEnv = {}) => {
    const granting = new Date();
    const grant = await cli(['powers-of-attorney', 'grant', '--customer', customer, '--holder', OTHER_FIRM, '--kind', 'information', '--from', '2026-11-01', '--to', '2027-10-31', '--json'], env);
    assert.equal(grant.code, 0, grant.stderr);
    const power = JSON.parse(grant.stdout) as Power;
    assert.deepEqual([power.customerId, power.holderOrganisationNumber, power.kind, power.validFrom, power.validTo, power.createdBy, power.revokedBy],
      [customer, OTHER_FIRM, 'information', '2026-11-01', '2027-10-31', by, null]);

    const [listed, byHolder, table] = await Promise.all([
      cli(['powers-of-attorney', '--customer', customer, '--json'], env),
      cli(['powers-of-attorney', 'list', '--holder', FIRM, '--json'], env),
      cli(['powers-of-attorney', 'list', '--customer', customer], env),
    ]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(jsonLines<Power>(listed.stdout).map((p) => p.id), [power.id]);
    assert.ok(!jsonLines<Power>(byHolder.stdout).some((p) => p.id === power.id), 'held by the other firm only');
    const [header, row] = table.stdout.trimEnd().split('\n');
    assert.match(header!, /^ID\s+CUSTOMER\s+HOLDER\s+KIND\s+FROM\s+TO\s+GRANTED\s+BY\s+REVOKED\s+BY$/);
    assert.equal(row!.indexOf('information'), header!.indexOf('KIND'), `columns aligned:\n${table.stdout}`);

    const revoking = new Date();
    const revoke = await cli(['powers-of-attorney', 'revoke', power.id, '--reason', 'the customer withdrew it', '--json'], env);
    assert.equal(revoke.code, 0, revoke.stderr);
    const revoked = JSON.parse(revoke.stdout) as Power;
    assert.deepEqual([revoked.id, revoked.createdAt, revoked.revokedBy], [power.id, power.createdAt, by]);
    const again = await cli(['powers-of-attorney', 'revoke', power.id], env);
    assert.equal(again.code, 1, again.stderr);
    assert.match(again.stderr, new RegExp(`RESOURCE_NOT_FOUND: .*No power of attorney ${power.id} in force to revoke`));

    const audit = await sql<{ change: string; changed_by: string; changed_at: Date; details: Record<string, unknown> }>(
      'SELECT change, changed_by, changed_at, details FROM power_of_attorney_changes WHERE power_of_attorney_id = $1 ORDER BY id', [power.id]);
    assert.deepEqual(audit.map((a) => [a.change, a.changed_by, a.details.reason ?? a.details.kind, a.changed_at.toISOString()]), [
      ['granted', by, 'information', power.createdAt], ['revoked', by, 'the customer withdrew it', revoked.revokedAt],
    ]);
    assertDuring(power.createdAt, granting, 'the grant');
    assertDuring(revoked.revokedAt!, revoking, 'the revocation');

    const [unknownFirm, badKind] = await Promise.all([
      cli(['powers-of-attorney', 'grant', '--customer', customer, '--holder', '5591111116', '--kind', 'information', '--from', '2026-11-01'], env),
      cli(['powers-of-attorney', 'grant', '--customer', customer, '--holder', OTHER_FIRM, '--kind', 'everything', '--from', '2026-11-01'], env),
    ]);
    assert.equal(unknownFirm.code, 2);
    assert.match(unknownFirm.stderr, /REQUEST_INVALID: .*5591111116 is not a registered advisor firm/);
    assert.equal(badKind.code, 2);
    assert.equal((await sql('SELECT 1 FROM powers_of_attorney WHERE customer_id = $1', [customer])).length, 1, 'nothing saved by a refused grant');
  };

  test('with no gateway running: list, show, approve (issued in the ledger) and reject in-process; a second decision exits 1', async () => {
    await decideTwo(IN_PROCESS);
    const [noReason, badStatus] = await Promise.all([cli(['applications', 'approve', 'IA-01JZZZZZZZZZZZZZZZZZZZZZZZ']), cli(['applications', '--status', 'pending'])]);
    assert.equal(noReason.code, 2, 'a decision needs its reason');
    assert.match(noReason.stderr, /--reason/);
    assert.equal(badStatus.code, 2, 'a status that does not exist');
  }, TEST_TIMEOUT_MS);

  test('with no gateway running: grant, list and revoke a power of attorney, every change audited', async () => {
    await keepRegister(BERTIL, IN_PROCESS);
  }, TEST_TIMEOUT_MS);

  test("through a running gateway's staff API: the same commands, recorded under the staff user they signed in as", async () => {
    const gateway = runCli(['api', '--config', config]);
    try {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.ok, 'the gateway to answer', GATEWAY_START_MS);
      // The config holds only a hash: without the password the gateway refuses, so the command did ask it.
      const refused = await cli(['applications', '--status', 'under-review'], { DEPOT_GATEWAY_STAFF_PASSWORD: 'not-the-password' });
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /STAFF_AUTHENTICATION_REQUIRED/);

      const env = { DEPOT_GATEWAY_STAFF_PASSWORD: STAFF_PASSWORD };
      await decideTwo(STAFF_DESK, env);
      await keepRegister('5590000013', STAFF_DESK, env);
      gateway.child.kill('SIGTERM');
      assert.equal(await gateway.exited, 0, gateway.output());
    } finally {
      if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
    }
  }, TEST_TIMEOUT_MS);
});
