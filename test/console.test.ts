/**
 * The staff console on real PostgreSQL and Redis, through the HTTP server: sign-in with
 * sessions (cookie attributes, wrong password, expiry, sign-out), CSRF on every
 * change, the two roles, the staff API and queue dashboard taking the session, search
 * by what is inside documents (document_keys), filters that cannot be right, a
 * replay with its reason in the append-only audit log, the read-only lists (custodian
 * reports, runs, set-aside mail, notices, applications, withdrawals) against the
 * database, the documents-per-minute chart, and a message's highlighted XML and the
 * ledger rows it wrote.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { startTestGateway, waitFor, type TestGateway } from './support/harness.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';
import { postSignIn, signInToConsole, cookieOf, type ConsoleSession } from './support/console-session.ts';
import { markDead } from '../src/ledger/messages/messages.repository.ts';
import { insertLines, insertRun } from '../src/ledger/custody/debit-runs.repository.ts';
import { recordSetAsideMail } from '../src/ledger/messages/mail-set-aside.repository.ts';
import { recordReportArrival } from '../src/ledger/custody/report-deadlines.repository.ts';
import { FIXED_NOW } from './support/harness.ts';
import { hashSecret } from '../src/config/secret-hash.ts';
import { submitSigned } from './support/application-signing.ts';
import { startTestBankId, type TestBankId } from './support/bankid.ts';
import type { MailSender, OutgoingMail } from '../src/channels/mail/mail-sender.ts';
import { parseBankAccount } from '../src/core/bank-account.ts';
import { signatoriesOf, withdrawalSignText } from '../src/core/withdrawal-request.rules.ts';
import { recordPayoutCanBegin } from '../src/ledger/plan/payout-start.repository.ts';
import { insertWithdrawalRequest } from '../src/ledger/advice/withdrawal-requests.repository.ts';
import { insertSignCase } from '../src/ledger/advice/sign-cases.repository.ts';
import { mailApplicationNotices } from '../src/calendar/application-notices.job.ts';
import { mailPayoutNotices } from '../src/calendar/payout-notices.job.ts';

const form = 'application/x-www-form-urlencoded';

describe('staff console', () => {
  let gateway: TestGateway;
  let testBankId: TestBankId;
  let operator: ConsoleSession;
  let viewer: ConsoleSession;
  const inject = (options: InjectOptions) => gateway.http!.inject(options);
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const sql = async <Row>(text: string, params: unknown[] = []) => (await gateway.deps.db.query<Row>(text, params)).rows;

  /** Submits a salary change for a person through the staff API and waits for it to be applied. */
  async function applied(messageId: string, pin: string, salary: string): Promise<string> {
    const posted = await inject({
      method: 'POST', url: `/api/messages?from=demo-employer&name=${messageId}.xml`, headers: { authorization: basic('olga', 'operator-password'), 'content-type': 'application/xml' },
      payload: salaryAdjustment({ messageId }, [{ pin, date: '2026-12-01', salary }]),
    });
    const id = (posted.json() as { messageId: string }).messageId;
    await waitFor(async () => (await sql<{ status: string }>('SELECT status FROM messages WHERE id = $1', [id]))[0]?.status === 'applied', `${messageId} applied`);
    return id;
  }

  beforeAll(async () => {
    testBankId = await startTestBankId();
    gateway = await startTestGateway({
      roles: ['api', 'worker'],
      settings: {
        staff: { users: [{ username: 'olga', password: 'operator-password' }, { username: 'vera', password: 'viewer-password', role: 'viewer' }] },
        workers: { reconcileEveryMs: 60_000, reconcileAfterMs: 60_000 },
        // The demo advisor firm, to submit the insurance applications the review lists show, and BankID to sign them.
        api: { clients: [{ id: 'firm', kind: 'advisor-firm', organisationNumber: '5565555553', secretHash: await hashSecret('firm-secret') }] },
        bankid: await testBankId.settings(),
      },
    });
    operator = await signInToConsole(gateway.http!, 'olga', 'operator-password');
    viewer = await signInToConsole(gateway.http!, 'vera', 'viewer-password');
  });
  afterAll(async () => {
    await gateway?.destroy();
    await testBankId?.close();
  });

  test('signing in sets an HttpOnly, SameSite=Strict session cookie and goes back to the page asked for; a wrong password does not', async () => {
    const wrong = await postSignIn(gateway.http!, 'olga', 'not-the-password');
    assert.equal(wrong.statusCode, 401);
    assert.match(wrong.body, /Unknown user or wrong password/);
    assert.ok(![wrong.headers['set-cookie'] ?? []].flat().some((cookie) => cookie.startsWith('dg_staff_session=')), 'no session for a wrong password');
    const right = await postSignIn(gateway.http!, 'olga', 'operator-password', '/console/messages?status=dead');
    assert.equal(right.statusCode, 303);
    assert.equal(right.headers.location, '/console/messages?status=dead');
    const session = [right.headers['set-cookie']].flat().find((cookie) => cookie?.startsWith('dg_staff_session='))!;
    assert.match(session, /; HttpOnly/);
    assert.match(session, /; SameSite=Strict/);
    assert.doesNotMatch(session, /Secure/, 'plain HTTP here: Secure only behind TLS');
    const elsewhere = await postSignIn(gateway.http!, 'olga', 'operator-password', '//evil.example/');
    assert.equal(elsewhere.headers.location, '/console', 'never sent to another site');
    const stored = await sql<{ token_sha256: string }>('SELECT token_sha256 FROM staff_sessions');
    assert.ok(!stored.some((row) => session.includes(row.token_sha256)), 'only a digest of the token is stored');
  });

  test('a sign-in form without its CSRF token is refused', async () => {
    const answer = await inject({ method: 'POST', url: '/console/sign-in', headers: { 'content-type': form }, payload: 'username=olga&password=operator-password' });
    assert.equal(answer.statusCode, 403);
    assert.equal(answer.headers['set-cookie']?.toString().includes('dg_staff_session='), false);
  });

  test('the staff API and the queue dashboard take the session as well as HTTP Basic', async () => {
    for (const url of ['/api/messages', '/admin/queues', '/admin/queues/api/queues']) {
      assert.equal((await inject({ url, headers: { cookie: operator.cookie } })).statusCode, 200, url);
      assert.equal((await inject({ url, headers: { cookie: viewer.cookie } })).statusCode, 200, url);
      assert.equal((await inject({ url, headers: { authorization: basic('olga', 'operator-password') } })).statusCode, 200, url);
      assert.equal((await inject({ url, headers: { cookie: 'dg_staff_session=made-up' } })).statusCode, 401, url);
    }
  });

  test('a change through the API with a session needs the CSRF token or the own origin; a viewer may change nothing', async () => {
    const id = await applied('CONSOLE-API-1', PERSONS.anna, '510000.00');
    const url = `/api/messages/${id}/replay`;
    const forged = await inject({ method: 'POST', url, headers: { cookie: operator.cookie } });
    assert.equal(forged.statusCode, 403);
    assert.equal(forged.json().code, 'STAFF_REQUEST_FORGED');
    const otherSite = await inject({ method: 'POST', url, headers: { cookie: operator.cookie, origin: 'https://evil.example' } });
    assert.equal(otherSite.json().code, 'STAFF_REQUEST_FORGED');
    // Past authentication: refused only because the message is not dead.
    assert.equal((await inject({ method: 'POST', url, headers: { cookie: operator.cookie, 'x-csrf-token': operator.csrf } })).json().code, 'MESSAGE_NOT_REPLAYABLE');
    assert.equal((await inject({ method: 'POST', url, headers: { cookie: operator.cookie, origin: 'http://localhost:80' } })).json().code, 'MESSAGE_NOT_REPLAYABLE');
    for (const headers of [{ cookie: viewer.cookie, 'x-csrf-token': viewer.csrf }, { authorization: basic('vera', 'viewer-password') }]) {
      const refused = await inject({ method: 'POST', url, headers });
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.json().code, 'STAFF_ROLE_FORBIDDEN');
    }
  });

  test('search by what is inside documents finds exactly the documents that name it', async () => {
    const annas = [await applied('CONSOLE-KEY-1', PERSONS.anna, '520000.00'), await applied('CONSOLE-KEY-2', PERSONS.anna, '530000.00')];
    const bertils = await applied('CONSOLE-KEY-3', PERSONS.bertil, '540000.00');
    const listed = async (query: string) => [...(await inject({ url: `/console/messages?${query}`, headers: { cookie: viewer.cookie } })).body.matchAll(/data-message-id="([^"]+)"/g)].map((match) => match[1]);
    const byPin = await listed(`pnr=${PERSONS.anna.slice(0, 8)}-${PERSONS.anna.slice(8)}`);
    const annaAll = (await sql<{ message_id: string }>(`SELECT DISTINCT message_id FROM document_keys WHERE kind = 'personnummer' AND value = $1`, [PERSONS.anna])).map((row) => row.message_id);
    assert.deepEqual(new Set(byPin), new Set(annaAll));
    for (const id of annas) assert.ok(byPin.includes(id));
    assert.ok(!byPin.includes(bertils));
    assert.deepEqual(await listed(`pnr=${PERSONS.bertil}`), [bertils]);
    assert.ok((await listed('agreement=AGR-1001')).length >= 3);
    assert.deepEqual(await listed('messageId=CONSOLE-KEY-2'), [annas[1]]);
    assert.deepEqual(await listed('file=CONSOLE-KEY-1.xml'), [annas[0]]);
    const detail = await inject({ url: `/console/messages/${annas[0]}`, headers: { cookie: viewer.cookie } });
    assert.match(detail.body, new RegExp(`<td>personnummer</td><td>${PERSONS.anna}</td>`), 'the detail view shows the number');
    const viewed = await sql<{ username: string }>(`SELECT username FROM staff_audit WHERE action = 'view-detail' AND subject = $1`, [annas[0]]);
    assert.deepEqual(viewed.map((row) => row.username), ['vera'], 'and its view is logged');
  });

  test('filters that cannot be right are a message on the page, not a failure', async () => {
    const answer = await inject({ url: '/console/messages?from=2026-13-01&status=lost&counterparty=nobody', headers: { cookie: viewer.cookie } });
    assert.equal(answer.statusCode, 200);
    assert.match(answer.body, /Received from &quot;2026-13-01&quot; is not a date/);
    assert.match(answer.body, /Status &quot;lost&quot; is not known/);
    assert.match(answer.body, /Counterparty &quot;nobody&quot; is not known/);
    const escaped = await inject({ url: `/console/messages?file=${encodeURIComponent('<script>x</script>')}`, headers: { cookie: viewer.cookie } });
    assert.ok(!escaped.body.includes('<script>x</script>'), 'what was typed is escaped');
  });

  test('replay from the console: operator only, with a reason, CSRF-checked, in the append-only audit log', async () => {
    const id = await applied('CONSOLE-DEAD-1', PERSONS.cecilia, '550000.00');
    await markDead(gateway.deps.db, id, 'deliver', 'DELIVERY_FAILED', 'the outbox could not be written');
    const replay = (session: ConsoleSession, fields: Record<string, string>) =>
      inject({ method: 'POST', url: `/console/messages/${id}/replay`, headers: { cookie: session.cookie, 'content-type': form }, payload: new URLSearchParams(fields).toString() });
    assert.equal((await replay(operator, { reason: 'outbox fixed' })).statusCode, 403, 'no CSRF token');
    assert.equal((await replay(operator, { _csrf: viewer.csrf, reason: 'outbox fixed' })).statusCode, 403, "another session's token");
    assert.equal((await replay(viewer, { _csrf: viewer.csrf, reason: 'outbox fixed' })).statusCode, 403, 'a viewer');
    assert.doesNotMatch((await inject({ url: `/console/messages/${id}`, headers: { cookie: viewer.cookie } })).body, /id="replay"/, 'a viewer is not offered the form');
    assert.equal((await replay(operator, { _csrf: operator.csrf, reason: '  ' })).statusCode, 400, 'no reason');
    const done = await replay(operator, { _csrf: operator.csrf, reason: 'outbox fixed (INC-42)' });
    assert.equal(done.statusCode, 303);
    await waitFor(async () => (await sql<{ status: string }>('SELECT status FROM messages WHERE id = $1', [id]))[0]?.status === 'applied', 'replayed and delivered');
    const again = await replay(operator, { _csrf: operator.csrf, reason: 'once more' });
    assert.equal(again.statusCode, 409);
    assert.match(again.body, /Only dead messages can be replayed/);
    const audit = await sql<{ username: string; action: string; reason: string; outcome: string }>(`SELECT username, action, reason, outcome FROM staff_audit WHERE action = 'replay' AND subject = $1 ORDER BY id`, [id]);
    assert.deepEqual(audit.map((entry) => [entry.username, entry.reason, entry.outcome.split(':')[0]]), [['olga', 'outbox fixed (INC-42)', 'done'], ['olga', 'once more', 'refused']]);
    const page = await inject({ url: `/console/audit?subject=${id}`, headers: { cookie: viewer.cookie } });
    assert.match(page.body, /outbox fixed \(INC-42\)/);
    await assert.rejects(gateway.deps.db.query(`UPDATE staff_audit SET reason = 'edited'`), /append-only/);
    await assert.rejects(gateway.deps.db.query('DELETE FROM staff_audit'), /append-only/);
  });

  test('an idle session ends: back to sign-in, then to the page asked for; sign-out ends it at once', async () => {
    const session = await signInToConsole(gateway.http!, 'vera', 'viewer-password');
    await gateway.deps.db.query(`UPDATE staff_sessions SET last_seen_at = now() - interval '31 minutes' WHERE username = 'vera'`);
    const expired = await inject({ url: '/console/messages?status=dead', headers: { cookie: session.cookie } });
    assert.equal(expired.statusCode, 303);
    assert.equal(expired.headers.location, `/console/sign-in?next=${encodeURIComponent('/console/messages?status=dead')}`);
    assert.equal((await inject({ url: '/api/messages', headers: { cookie: session.cookie } })).statusCode, 401);

    const fresh = await signInToConsole(gateway.http!, 'olga', 'operator-password');
    const out = await inject({ method: 'POST', url: '/console/sign-out', headers: { cookie: fresh.cookie, 'content-type': form }, payload: `_csrf=${fresh.csrf}` });
    assert.equal(out.statusCode, 303);
    assert.match(cookieOf(out.headers['set-cookie'], 'dg_staff_session'), /^dg_staff_session=$/);
    assert.equal((await inject({ url: '/console', headers: { cookie: fresh.cookie } })).statusCode, 303);
  });

  const rowsOf = (body: string, id: string) => [...(body.match(new RegExp(`<table id="${id}">([\\s\\S]*?)</table>`))?.[1] ?? '').matchAll(/<tr><td>/g)].length;
  // A viewer of its own: the session test above ends every session of 'vera' it finds idle.
  let reader: ConsoleSession | undefined;
  const page = async (url: string) => {
    reader ??= await signInToConsole(gateway.http!, 'vera', 'viewer-password');
    const answer = await inject({ url, headers: { cookie: reader.cookie } });
    assert.equal(answer.statusCode, 200, url);
    return answer.body;
  };
  const count = async (text: string, params: unknown[] = []) => Number((await sql<{ n: string }>(text, params))[0]!.n);
  /** The notice, application and withdrawal lists: page, table id, and the count of the rows the page must show. */
  const READ_ONLY_LISTS: readonly (readonly [url: string, table: string, counted: string])[] = [
    ['/console/payout-notices', 'payout-notices', 'SELECT count(*) AS n FROM payout_notices'],
    ['/console/payout-notices?unsent=true', 'payout-notices', 'SELECT count(*) AS n FROM payout_notices WHERE sent_at IS NULL'],
    ['/console/application-notices', 'application-notices', 'SELECT count(*) AS n FROM application_notices'],
    ['/console/applications', 'applications', `SELECT count(*) AS n FROM applications WHERE status = 'under-review'`],
    ['/console/applications?status=', 'applications', 'SELECT count(*) AS n FROM applications'],
    ['/console/withdrawal-requests', 'withdrawal-requests', 'SELECT count(*) AS n FROM withdrawal_requests'],
  ];

  test('the read-only lists show what the database holds, each linked from the overview and the navigation', async () => {
    const id = await applied('CONSOLE-LIST-1', PERSONS.anna, '560000.00');
    await gateway.deps.db.transaction((tx) => recordReportArrival(tx, { custodianId: 'demo-custodian', kind: 'Holdings', asOfDate: '2026-11-19', receivedAt: new Date('2026-11-20T06:00:00Z'), messageId: id }));
    await recordSetAsideMail(gateway.deps.db, { mailMessageId: '<set-aside-1@example.test>', sender: 'stranger@example.test', subject: `About ${PERSONS.anna}`, reason: 'unknown-sender', detail: 'not a counterparty', folder: 'SetAside', receivedAt: FIXED_NOW });
    await gateway.deps.db.transaction(async (tx) => {
      const createdAt = FIXED_NOW;
      await insertRun(tx, { runKey: '2026-Q3', custodianId: 'demo-custodian', kind: 'debit', runDate: '2026-10-05', createdAt,
        held: [{ accountNumber: 'ACC-HELD-1', insuranceNumber: 'INS-HELD-1', reason: 'no custody values on or before 2026-09-30' }],
        document: { documentId: 'DA-2026-Q3-demo-custodian', documentType: 'DebitAccounts', fileName: 'debit-run-2026-Q3.DebitAccounts.xml', body: '<DebitAccounts/>' } });
      await insertLines(tx, '2026-Q3', 'demo-custodian', [
        { accountNumber: 'ACC-1', insuranceNumber: 'INS-1', charge: 'FixedCharge', amount: '100.00', periodFrom: '2026-07-01', periodTo: '2026-09-30' },
        { accountNumber: 'ACC-1', insuranceNumber: 'INS-1', charge: 'CapitalCharge', amount: '23.45', periodFrom: '2026-07-01', periodTo: '2026-09-30' },
      ]);
    });

    const overview = await page('/console');
    for (const link of ['/console/custodian-reports?status=late', '/console/custodian-reports?status=missing', '/console/mail-set-aside', '/console/applications?status=under-review',
      '/console/withdrawal-requests?status=requested', '/console/payout-notices?unsent=true', '/console/runs', '/console/application-notices']) {
      assert.ok(overview.includes(`href="${link.replace(/&/g, '&amp;')}"`), link);
    }
    for (const link of ['/console/custodian-reports', '/console/runs', '/console/mail-set-aside', '/console/payout-notices', '/console/application-notices', '/console/applications', '/console/withdrawal-requests']) {
      assert.ok(overview.includes(`<a href="${link}">`), `navigation: ${link}`);
    }

    // The daily reports of the last 14 days: the same rows, statuses and arrival as the staff API's.
    const reports = await page('/console/custodian-reports');
    const api = (await inject({ url: '/api/custodian-reports', headers: { cookie: reader!.cookie } })).json() as { reports: { status: string; messageId: string | null }[] };
    assert.equal(rowsOf(reports, 'daily-reports'), api.reports.length);
    for (const status of ['on_time', 'late', 'missing', 'pending']) {
      const shown = Number(reports.match(new RegExp(`data-status="${status}">[^<]*<strong>(\\d+)</strong>`))![1]);
      assert.equal(shown, api.reports.filter((report) => report.status === status).length, status);
    }
    assert.ok(reports.includes(`href="/console/messages/${id}"`), 'the arrived report links to its message');
    assert.match(reports, /id="annual-reports/);
    const late = await page('/console/custodian-reports?status=late');
    assert.ok(!/data-status="(on_time|missing|pending)">(on_time|missing|pending)</.test(late));
    assert.match(await page('/console/custodian-reports?from=2026-02-30&status=lost'), /&quot;from&quot; must be a date/);

    const runs = await page('/console/runs');
    assert.equal(rowsOf(runs, 'runs'), await count('SELECT count(*) AS n FROM debit_runs'));
    assert.match(runs, /debit-run-2026-Q3\.DebitAccounts\.xml/);
    assert.match(runs, /<td>123\.45<\/td>/, 'the lines add up');
    assert.match(runs, /<td>ACC-HELD-1<\/td><td><a href="\/console\/insurances\/INS-HELD-1">INS-HELD-1<\/a><\/td><td>no custody values on or before 2026-09-30<\/td>/);
    assert.equal(rowsOf(await page('/console/runs?kind=payout'), 'runs'), await count(`SELECT count(*) AS n FROM debit_runs WHERE kind = 'payout'`));
    assert.match(await page('/console/runs?kind=weekly'), /Kind &quot;weekly&quot; is not known/);

    const mail = await page('/console/mail-set-aside');
    assert.equal(rowsOf(mail, 'set-aside'), await count('SELECT count(*) AS n FROM mail_set_aside'));
    assert.match(mail, /stranger@example\.test/);
    assert.ok(!mail.includes(PERSONS.anna), 'a personnummer in a subject is masked');

    for (const [url, table, counted] of READ_ONLY_LISTS) assert.equal(rowsOf(await page(url), table), await count(counted), url);
    assert.match(await page('/console/applications?status=lost'), /Status &quot;lost&quot; is not known/);
  });

  test('the notice, application and withdrawal lists show the rows the gateway recorded: sent and unsent notices, applications under review and decided, requested and rejected withdrawals', async () => {
    const { db } = gateway.deps;
    const ANNA = PERSONS.anna;
    const ANNA_MAIL = 'anna.andersson@mail.example';
    const KARIN_MAIL = 'karin.lind@demo-radgivning.example';
    const CUSTOMER_SERVICE = 'customer.service@insurer.example';
    const NOT_YET = '<span data-unsent>not yet</span>';
    const mailed: OutgoingMail[] = [];
    /** A mail sender that takes every mail but those to `refused`. */
    const sender = (refused?: string): MailSender => ({
      async send(mail) {
        if (mail.to === refused) throw new Error('452 4.2.2 mailbox full');
        mailed.push(mail);
        return { messageId: `<console-${mailed.length}@test>` };
      },
      async close() {},
    });

    // Payout notices: the daily payout-start check on the day Anna turns 65 (her T and K insurances), mailed to
    // customer service; then the check on the day Eva turns 65, not mailed yet.
    const canBegin = await db.transaction((tx) => recordPayoutCanBegin(tx, '2035-01-01', new Date('2026-11-22T05:00:00Z')));
    assert.deepEqual(canBegin.map((notice) => notice.insuranceNumber), ['INS-100001', 'INS-100006']);
    const sentNotices = await db.transaction((tx) => mailPayoutNotices(tx, { mailSender: sender(), address: CUSTOMER_SERVICE, log: gateway.log }, new Date('2026-11-22T06:30:00Z')));
    assert.deepEqual(sentNotices.map((notice) => notice.insuranceNumber), ['INS-100001', 'INS-100006']);
    const later = await db.transaction((tx) => recordPayoutCanBegin(tx, '2041-07-15', new Date('2026-11-22T07:00:00Z')));
    assert.deepEqual(later.map((notice) => notice.insuranceNumber), ['INS-100005']);

    // Two insurance applications from the demo firm, signed by Anna, both above the single premium that needs a review (and so
    // with their notices to the advisor and the policyholder); the second approved by staff and so issued.
    const token = await inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': form }, payload: 'grant_type=client_credentials&client_id=firm&client_secret=firm-secret' });
    const bearer = `Bearer ${(token.json() as { access_token: string }).access_token}`;
    const application = {
      productId: 'KF-DEPA', advisorCode: 'ADV-001', policyholder: { id: ANNA }, insured: { id: ANNA },
      premium: { single: '2500000.00' }, funds: [{ isin: 'SE000DEPA010', percent: 100 }],
      custodianId: 'demo-custodian', beneficiary: { choice: 'standard' }, coverages: { repaymentProtection: true, premiumWaiver: false },
    };
    const submit = async (body: object) => {
      const saved = await submitSigned<{ applicationId: string; status: string; signCaseId: string }>(
        (options) => inject({ ...options, headers: { ...options.headers, authorization: bearer } }), testBankId.server, '/InsuranceApplication', body);
      assert.equal(saved.status, 'under-review', JSON.stringify(saved));
      return saved.applicationId;
    };
    const waiting = await submit({ ...application, policyholder: { id: ANNA, email: ANNA_MAIL } });
    const decided = await submit(application);
    const approval = await inject({
      method: 'POST', url: `/api/applications/${decided}/approve`, headers: { authorization: basic('olga', 'operator-password') }, payload: { reason: 'the premium is from a property sale' },
    });
    assert.deepEqual(approval.json(), { applicationId: decided, status: 'issued' });
    const issued = (await sql<{ insurance_number: string }>('SELECT insurance_number FROM applications WHERE application_id = $1', [decided]))[0]!.insurance_number;
    assert.match(issued, /^INS-\d+$/);

    // The application-notice job: the advisor's notice of the waiting application is mailed, the policyholder's is
    // refused by the mail server (a failed try); those of the decided application are never mailed.
    assert.equal(await db.transaction((tx) => mailApplicationNotices(tx, { mailSender: sender(ANNA_MAIL), log: gateway.log }, new Date('2026-11-22T10:05:00Z'))), 1);

    // Two withdrawal requests on the issued insurance, to Anna's SEB account; the second rejected by staff.
    const reading = parseBankAccount('50001234560');
    assert.ok(reading.ok);
    const account = reading.account;
    for (const [requestId, amount, minute] of [['WR-CONSOLE-1', '12500.00', 0], ['WR-CONSOLE-2', '3000.00', 1]] as const) {
      const requestedAt = new Date(FIXED_NOW.getTime() + minute * 60_000);
      await db.transaction(async (tx) => {
        await insertWithdrawalRequest(tx, { requestId, insuranceNumber: issued, customerId: ANNA, amount, account, requestedAt, requestedBy: 'client:firm' });
        await insertSignCase(tx, {
          signCaseId: requestId.replace('WR-', 'SC-'), subject: { kind: 'withdrawal', id: requestId }, customerId: ANNA, custodianId: 'demo-custodian',
          visibleText: withdrawalSignText({ insuranceNumber: issued, amount, account }), signatories: signatoriesOf(ANNA, ANNA)!, companySignaturesRequired: null, createdAt: requestedAt,
        });
      });
    }
    const rejection = await inject({
      method: 'POST', url: '/api/withdrawal-requests/WR-CONSOLE-2/reject', headers: { authorization: basic('olga', 'operator-password') }, payload: { reason: 'asked for by mistake' },
    });
    assert.deepEqual(rejection.json(), { requestId: 'WR-CONSOLE-2', status: 'rejected' });

    /** The cells of each row of a page's table, as the page renders them; an insurance number's link to its page is checked and read as the number. */
    const cellsOf = (body: string, id: string) => [...(body.match(new RegExp(`<table id="${id}">([\\s\\S]*?)</table>`))?.[1] ?? '').matchAll(/<tr>(<td>[\s\S]*?)<\/tr>/g)]
      .map((row) => [...row[1]!.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((cell) => cell[1]!.replace(/^<a href="\/console\/insurances\/([^"]+)">\1<\/a>$/, '$1')));
    const rowsNamed = (body: string, id: string, ...first: string[]) => cellsOf(body, id).filter((cells) => first.every((value, index) => cells[index] === value));

    // Each list has as many rows as the database, none now empty.
    for (const [url, table, counted] of READ_ONLY_LISTS) {
      const rows = await count(counted);
      assert.ok(rows > 0, `${url}: rows to show`);
      assert.equal(rowsOf(await page(url), table), rows, url);
    }
    // The overview counts what waits, each linked to its list.
    const overview = await page('/console');
    const card = (id: string, href: string) => Number(overview.match(new RegExp(`<a id="${id}" href="${href.replace(/[?]/g, '\\?')}">(\\d+)</a>`))?.[1]);
    assert.equal(card('reviews', '/console/applications?status=under-review'), await count(`SELECT count(*) AS n FROM applications WHERE status = 'under-review'`));
    assert.equal(card('withdrawals', '/console/withdrawal-requests?status=requested'), await count(`SELECT count(*) AS n FROM withdrawal_requests WHERE status = 'requested'`));
    assert.equal(card('signed-withdrawals', '/console/withdrawal-requests?status=signed'), await count(`SELECT count(*) AS n FROM withdrawal_requests WHERE status = 'signed'`));
    assert.equal(card('unsent-payout-notices', '/console/payout-notices?unsent=true'), await count('SELECT count(*) AS n FROM payout_notices WHERE sent_at IS NULL'));

    // Payout notices: insurance, insured (masked), custody account, the day payout can begin, recorded, how the
    // insured was told (no address of Anna is known: a letter, linked) and the copy mailed to whom and when.
    const payouts = await page('/console/payout-notices');
    const letter = (insurance: string) => `2026-11-22 07:30:00 <a data-letter href="/console/payout-notices/${insurance}/letter">letter (PDF)</a>`;
    assert.deepEqual(rowsNamed(payouts, 'payout-notices', 'INS-100001'), [
      ['INS-100001', 'Anna Andersson, 19700101-****', 'DEPA-100001', '2035-01-01', '', '', '2026-11-22 06:00:00', letter('INS-100001'), `2026-11-22 07:30:00 to ${CUSTOMER_SERVICE}`]]);
    assert.deepEqual(rowsNamed(payouts, 'payout-notices', 'INS-100006'), [
      ['INS-100006', 'Anna Andersson, 19700101-****', 'DEPA-100006', '2035-01-01', '', '', '2026-11-22 06:00:00', letter('INS-100006'), `2026-11-22 07:30:00 to ${CUSTOMER_SERVICE}`]]);
    const evasNotice = ['INS-100005', 'Eva Ek, 19760715-****', 'DEPA-100005', '2041-07-15', '', '', '2026-11-22 08:00:00', '<span data-untold>not yet</span>', NOT_YET];
    assert.deepEqual(rowsNamed(payouts, 'payout-notices', 'INS-100005'), [evasNotice]);
    assert.ok(payouts.includes('<a href="/console/payout-notices?unsent=true">Copy not mailed yet</a>'), 'a link to the unsent ones');
    assert.ok(payouts.includes('<a href="/console/payout-notices?letters=true">Letters to print</a>'), 'a link to the print queue');
    const printQueue = await page('/console/payout-notices?letters=true');
    assert.deepEqual(cellsOf(printQueue, 'payout-notices').map((cells) => cells[0]).sort(), ['INS-100001', 'INS-100006']);
    // Only the notice not mailed yet under ?unsent=true.
    const unsentPayouts = await page('/console/payout-notices?unsent=true');
    assert.deepEqual(cellsOf(unsentPayouts, 'payout-notices'), [evasNotice]);
    assert.ok(unsentPayouts.includes('<a href="/console/payout-notices">All</a>'), 'a link back to all');

    // Application notices: one per recipient, with the application's status now, the address, and what became of the mail.
    const notices = await page('/console/application-notices');
    const recorded = '2026-11-22 11:00:00';
    const advisorMailed = [waiting, 'under-review', 'advisor', KARIN_MAIL, recorded, `2026-11-22 11:05:00 to ${KARIN_MAIL}`, ''];
    const policyholderRefused = [waiting, 'under-review', 'policyholder', ANNA_MAIL, recorded, NOT_YET, '1: 452 4.2.2 mailbox full'];
    // Never to be mailed, and saying why: decided before it was mailed, or no address known.
    const decidedAdvisor = [decided, 'issued', 'advisor', KARIN_MAIL, recorded, '<span data-never>never: the application was decided first</span>', ''];
    const decidedPolicyholder = [decided, 'issued', 'policyholder', '(none known)', recorded, '<span data-never>never: no address known</span>', ''];
    assert.deepEqual(rowsNamed(notices, 'application-notices', waiting), [advisorMailed, policyholderRefused]);
    assert.deepEqual(rowsNamed(notices, 'application-notices', decided), [decidedAdvisor, decidedPolicyholder]);
    const unsentNotices = await page('/console/application-notices?unsent=true');
    assert.equal(rowsOf(unsentNotices, 'application-notices'), await count('SELECT count(*) AS n FROM application_notices WHERE sent_at IS NULL'));
    assert.deepEqual(rowsNamed(unsentNotices, 'application-notices', waiting), [policyholderRefused], 'the mailed notice is not among the unsent');
    assert.deepEqual(rowsNamed(unsentNotices, 'application-notices', decided), [decidedAdvisor, decidedPolicyholder]);

    // Applications: under review by default, the decided one under its status and under all; the customer masked.
    const waitingRow = [waiting, 'insurance', 'under-review', recorded, '19700101-****', 'Kapitalförsäkring Depå (KF-DEPA)', '5565555553 / ADV-001', ''];
    const issuedRow = [decided, 'insurance', 'issued', recorded, '19700101-****', 'Kapitalförsäkring Depå (KF-DEPA)', '5565555553 / ADV-001', issued];
    const underReview = await page('/console/applications');
    assert.deepEqual(rowsNamed(underReview, 'applications', waiting), [waitingRow]);
    assert.deepEqual(rowsNamed(underReview, 'applications', decided), [], 'a decided application is not under review');
    assert.deepEqual(cellsOf(await page('/console/applications?status=under-review'), 'applications'), cellsOf(underReview, 'applications'));
    assert.deepEqual(cellsOf(await page('/console/applications?status=issued'), 'applications'), [issuedRow]);
    const allApplications = await page('/console/applications?status=');
    assert.deepEqual(rowsNamed(allApplications, 'applications', waiting), [waitingRow]);
    assert.deepEqual(rowsNamed(allApplications, 'applications', decided), [issuedRow]);

    // Withdrawal requests, oldest first: who asked when, the insurance and its custodian, amount, account, decision.
    const requestedRow = ['WR-CONSOLE-1', 'requested', '2026-11-22 11:00:00 by client:firm', issued, '19700101-****', 'demo-custodian', '12500.00', 'SEB 50001234560', '', ''];
    const rejectedRow = ['WR-CONSOLE-2', 'rejected', '2026-11-22 11:01:00 by client:firm', issued, '19700101-****', 'demo-custodian', '3000.00', 'SEB 50001234560', 'rejected', ''];
    const withdrawals = await page('/console/withdrawal-requests');
    assert.deepEqual(cellsOf(withdrawals, 'withdrawal-requests'), [requestedRow, rejectedRow]);
    assert.deepEqual(cellsOf(await page('/console/withdrawal-requests?status=requested'), 'withdrawal-requests'), [requestedRow]);
    assert.deepEqual(cellsOf(await page('/console/withdrawal-requests?status=rejected'), 'withdrawal-requests'), [rejectedRow]);

    for (const [url, body] of [['/console/applications', underReview], ['/console/applications?status=', allApplications], ['/console/withdrawal-requests', withdrawals]] as const) {
      assert.ok(!body.includes(ANNA), `${url}: no personnummer in full`);
    }
    assert.deepEqual(mailed.map((mail) => mail.to), [CUSTOMER_SERVICE, KARIN_MAIL], 'one mail of both payout notices, one to the advisor');
  });

  test('the overview charts the documents per minute of the last three hours, as many as the store holds', async () => {
    await applied('CONSOLE-CHART-1', PERSONS.bertil, '570000.00');
    const overview = await page('/console');
    const chart = overview.match(/<svg id="per-minute"[\s\S]*?<\/svg>/)![0];
    const minute = Math.floor(FIXED_NOW.getTime() / 60_000) * 60_000;
    const from = new Date(minute - 179 * 60_000);
    const received = await count('SELECT count(*) AS n FROM messages WHERE received_at >= $1 AND received_at < $2', [from, new Date(from.getTime() + 3 * 3_600_000)]);
    assert.ok(received > 0);
    assert.match(chart, new RegExp(`data-total="${received}"`));
    const bars = [...chart.matchAll(/data-count="(\d+)"/g)].reduce((sum, bar) => sum + Number(bar[1]), 0);
    assert.equal(bars, received);
  });

  test("a message's raw XML is indented and highlighted, still downloadable as received; its ledger rows are listed per table", async () => {
    const id = await applied('CONSOLE-LEDGER-1', PERSONS.cecilia, '580000.00');
    const detail = await page(`/console/messages/${id}`);
    const raw = detail.match(/<pre id="raw">([\s\S]*?)<\/pre>/)![1]!;
    assert.match(raw, /\n {2}<span class="xml-tag">&lt;Header<\/span><span class="xml-tag">&gt;<\/span>/, 'one element a line, indented');
    assert.match(raw, /<span class="xml-attribute">xmlns<\/span>=<span class="xml-value">&quot;urn:se:depot-gateway:v1&quot;<\/span>/);
    const download = await inject({ url: `/console/messages/${id}/raw`, headers: { cookie: reader!.cookie } });
    const stored = await sql<{ raw: Buffer }>('SELECT raw FROM messages WHERE id = $1', [id]);
    assert.deepEqual(download.rawPayload, stored[0]!.raw, 'the download is byte for byte');

    const salaries = await count('SELECT count(*) AS n FROM salaries WHERE message_id = $1', [id]);
    assert.ok(salaries > 0);
    assert.match(detail, new RegExp(`<table class="ledger" data-table="salaries" data-total="${salaries}">`));
    assert.match(detail, /580000/);
    const tables = [...detail.matchAll(/data-table="([^"]+)" data-total="(\d+)"/g)];
    for (const [, table, total] of tables) assert.equal(Number(total), await count(`SELECT count(*) AS n FROM ${table} WHERE message_id = $1`, [id]), table);
    assert.ok(!tables.some(([, table]) => table === 'message_events' || table === 'document_keys'), 'the message store is shown elsewhere');
  });
});
