/**
 * The bench of test/concurrent-writes.test.ts: a gateway on one database set up for
 * every route that writes (demo-employer's SSEK signing certificate, demo-custodian's
 * REST password, BankID, two REST clients of one advisor firm with limits no burst
 * reaches, powers of attorney and a validated withdrawal account), and what the rows
 * share: the requests they send, the ledger they read and the data they prepare — with
 * a route where that is simple, with SQL where that is simpler.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdir, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LocalPerson } from '../../src/bankid/local-bankid-orders.ts';
import { startTestGateway, testSettings, waitFor, type TestGateway, type TestGatewayOptions } from './harness.ts';
import { registerCompanySignatories, submitSigned, type RestCall } from './application-signing.ts';
import type { TestBankId } from './bankid.ts';
import type { SmtpSink } from './smtp-sink.ts';
import { salaryAdjustment } from './documents.ts';
import { cookieOf, csrfOf } from './console-session.ts';
import { burst, json, send, tally, type Answer, type Burst, type Call } from './http-burst.ts';

export const AT_ONCE = 20;
export const TODAY = '2026-11-22'; // the harness's fixed clock
export const FIRM = '5565555553';
export const CLIENTS = ['firm-a', 'firm-b'] as const;
/** The policyholder (and insured) of the insurances the rows issue. */
const APPLICANT: LocalPerson = { personalNumber: '199203033452', givenName: 'Ebbe', surname: 'Lind' };
/** Validated for APPLICANT's withdrawals (Handelsbanken). */
export const VALIDATED_ACCOUNT = '6000123456789';
/** A customer with no insurance, for registering a withdrawal account. */
export const CUSTOMER = '198506152381';
export const PLAN_EMPLOYER = '8020000009';
/** PLAN_EMPLOYER's one registered company signatory, who signs its plan applications alone. */
export const EMPLOYER_SIGNATORY: LocalPerson = { personalNumber: '197005055004', givenName: 'Maja', surname: 'Berg' };
export const ORGANISATION = '5561234567';
const CUSTODIAN_PASSWORD = 'custodian-rest-password';
export const STAFF_BASIC = `Basic ${Buffer.from('staff:test-password').toString('base64')}`;

/** What a row works with: the gateway on one database, its address, BankID, its mail server and the REST clients' tokens. */
export interface Bench {
  readonly gateway: TestGateway;
  readonly base: string;
  readonly bankid: TestBankId;
  /** The SMTP server behind mail.smtp (the console mails signing links through it). */
  readonly smtp: SmtpSink;
  readonly tokens: readonly string[];
  /** The private key demo-employer signs its SSEK envelopes with. */
  readonly ssekKey: string;
  /** The calls at once, with /readyz polled throughout (support/http-burst.ts). */
  burst(calls: readonly Call[]): Promise<Burst>;
}

/**
 * A gateway with both roles on the engine, the counterparties' SSEK signing certificate
 * and REST password, BankID, a mail server, two clients of the advisor firm and limits no
 * burst reaches; the firm may act for APPLICANT and CUSTOMER, APPLICANT's account is
 * validated, and PLAN_EMPLOYER has a company signatory who signs alone.
 */
export async function openBench(
  engine: string, options: TestGatewayOptions,
  shared: {
    bankid: TestBankId; bankidSettings: Record<string, unknown>; smtp: SmtpSink;
    employerSigning: { cert: string; key: string }; clients: readonly { id: string; secretHash: string }[];
  },
): Promise<Bench> {
  const counterparties = (testSettings('unused').counterparties as Record<string, unknown>[]).map((counterparty) => {
    if (counterparty.id === 'demo-employer') return { ...counterparty, ssek: { signingCertificatePath: shared.employerSigning.cert } };
    if (counterparty.id === 'demo-custodian') return { ...counterparty, rest: { password: CUSTODIAN_PASSWORD } };
    return counterparty;
  }).concat([
    // A second custodian, for the custodian switches' rows; it does not report daily (no missing-report notices).
    { id: 'north-custodian', name: 'North Custodian AB', organisationNumber: '5560000019', role: 'custodian', messageTypes: ['custodian-reporting'], reports: false },
  ]);
  const gateway = await startTestGateway({
    ...options,
    roles: ['api', 'worker'],
    settings: {
      // The default pool, named: a burst of 20 meets 20 connections (the embedded database has one whatever this says).
      databasePoolSize: 20,
      counterparties,
      bankid: shared.bankidSettings,
      mail: { smtp: { host: shared.smtp.host, port: shared.smtp.port, from: 'gateway@insurer.example' } },
      // A synchronous SSEK request waits this long for its response, then is answered with a receipt.
      ssek: { syncWaitMs: 2_000 },
      api: {
        tokenRequestsPerMinute: 1000,
        clients: shared.clients.map((client) => ({ ...client, kind: 'advisor-firm', organisationNumber: FIRM })),
        // Each client may have half the burst in flight (below the pool, as the configuration requires) and
        // more requests a second than the file makes: no request of a burst is refused 429.
        limits: { requestsPerSecond: 10_000, burst: 10_000, concurrentRequests: AT_ONCE / CLIENTS.length },
        // A single premium above 100,000 SEK is reviewed: the staff decisions get applications to decide.
        review: { singlePremiumAbove: '100000' },
      },
    },
  });
  const address = gateway.http!.server.address();
  assert.ok(address && typeof address === 'object', engine);
  const base = `http://127.0.0.1:${address.port}`;
  const tokens = await Promise.all(CLIENTS.map(async (id) => json<{ access_token: string }>(await send(base, tokenCall(id))).access_token));
  const bench: Bench = {
    gateway, base, bankid: shared.bankid, smtp: shared.smtp, tokens, ssekKey: await readFile(shared.employerSigning.key, 'utf8'),
    burst: (calls) => burst(base, calls),
  };
  for (const customerId of [APPLICANT.personalNumber, CUSTOMER]) {
    await expectStatus(bench, staffCall('POST', '/api/powers-of-attorney', { holderOrganisationNumber: FIRM, customerId, kind: 'intermediation', validFrom: '2026-01-01' }), 201);
  }
  await gateway.deps.db.query(
    `INSERT INTO withdrawal_accounts (registration_id, customer_id, account_digits, clearing_number, account_number, bank_name, registered_at, registered_by, validation_day, status, decided_at)
     VALUES ('WA-CONCURRENT', $1, $2, '6000', '123456789', 'Handelsbanken', now(), 'client:firm-a', $3, 'validated', now())`, [APPLICANT.personalNumber, VALIDATED_ACCOUNT, TODAY],
  );
  const staff: RestCall = (call) => gateway.http!.inject({ ...call, headers: { ...call.headers, authorization: STAFF_BASIC } });
  await registerCompanySignatories(staff, PLAN_EMPLOYER, [EMPLOYER_SIGNATORY.personalNumber], 1);
  return bench;
}

// --- requests

export function times<T>(make: (i: number) => T): T[] {
  return Array.from({ length: AT_ONCE }, (_, i) => make(i));
}

export function tokenCall(clientId: string): Call {
  return {
    path: '/oauth/token',
    init: {
      method: 'POST', body: 'grant_type=client_credentials',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${clientId}-secret`).toString('base64')}` },
    },
  };
}

/** A REST API request of the i-th call, by one of the clients in turn. */
export function restCall(b: Bench, i: number, method: string, path: string, body?: unknown): Call {
  const headers = { authorization: `Bearer ${b.tokens[i % b.tokens.length]}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  return { path, init: { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) } };
}

/** The REST API through the gateway's own inject, as the first client: for the helpers of test/support/application-signing.ts. */
export function restInject(b: Bench): RestCall {
  return (call) => b.gateway.http!.inject({ ...call, headers: { ...call.headers, authorization: `Bearer ${b.tokens[0]}` } });
}

export function staffCall(method: string, path: string, body?: unknown): Call {
  const headers = { authorization: STAFF_BASIC, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  return { path, init: { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) } };
}

export function custodianCall(path: string, document: string): Call {
  return { path, init: { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`demo-custodian:${CUSTODIAN_PASSWORD}`).toString('base64')}`, 'content-type': 'application/xml' }, body: document } };
}

/** One request made while preparing a row; it must answer `status`. */
export async function expectStatus(b: Bench, call: Call, status: number): Promise<Answer> {
  const answer = await send(b.base, call);
  assert.equal(answer.status, status, `${call.init?.method ?? 'GET'} ${call.path}: ${answer.text.slice(0, 300)}`);
  return answer;
}

// --- the ledger

export async function rows<T>(b: Bench, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await b.gateway.deps.db.query<T>(sql, params)).rows;
}

export async function count(b: Bench, sql: string, params: unknown[] = []): Promise<number> {
  return Number((await rows<{ n: string | number }>(b, sql, params))[0]!.n);
}

export function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

export async function withdrawalEvents(b: Bench, requestId: string): Promise<string[]> {
  return (await rows<{ event: string }>(b, 'SELECT event FROM withdrawal_request_events WHERE request_id = $1 ORDER BY id', [requestId])).map((row) => row.event);
}

export async function applicationHistory(b: Bench, applicationId: string): Promise<string[]> {
  return (await rows<{ status: string }>(b, 'SELECT status FROM application_status_changes WHERE application_id = $1 ORDER BY id', [applicationId])).map((row) => row.status);
}

export async function replays(b: Bench, messageId: string): Promise<number> {
  return count(b, `SELECT count(*) AS n FROM message_events WHERE message_id = $1 AND reason LIKE 'replayed from %'`, [messageId]);
}

/** Every report answered 202 (or 200 when acknowledged at once), then each processed and accepted. */
export async function expectReportsApplied(b: Bench, answers: readonly Answer[]): Promise<void> {
  assert.ok(answers.every((answer) => answer.status === 202 || answer.status === 200), JSON.stringify(tally(answers)));
  const ids = answers.map((answer) => (answer.status === 202 ? json<{ messageId: string }>(answer).messageId : answer.headers.get('x-gateway-message-id')!));
  const finished = await waitFor(async () => {
    const found = await rows<{ status: string; outcome: string | null }>(b, 'SELECT status, outcome FROM messages WHERE id = ANY($1)', [ids]);
    return found.length === AT_ONCE && found.every((row) => row.status !== 'received' && row.status !== 'validated') && found;
  }, 'the 20 reports processed', 60_000);
  assert.deepEqual(countBy(finished.map((row) => `${row.status} ${row.outcome}`)), { 'applied accepted': AT_ONCE }, 'each report loaded');
}

// --- what the rows prepare

export function insuranceApplication(single = '50000.00') {
  return {
    productId: 'KF-DEPA', advisorCode: 'ADV-001', policyholder: { id: APPLICANT.personalNumber }, insured: { id: APPLICANT.personalNumber },
    premium: { single, monthly: '1000' }, funds: [{ isin: 'SE000DEPA010', percent: 100 }],
    custodianId: 'demo-custodian', beneficiary: { choice: 'standard' }, coverages: { repaymentProtection: true, premiumWaiver: false },
  };
}

export function planApplication() {
  return {
    productId: 'TJP-DEPA', advisorCode: 'ADV-001',
    employer: { organisationNumber: PLAN_EMPLOYER, name: 'Burst Employer AB' },
    agreement: { categories: [{ code: 'FAST', name: 'Fast premie', premium: { fixedMonthly: '1500' } }], costCenters: [{ code: '100', name: 'Ekonomi' }] },
    funds: [{ isin: 'SE000DEPA010', percent: 100 }],
    custodianId: 'demo-custodian',
    employees: [{ personalIdentityNumber: '199506151233', category: 'FAST', costCenter: '100', annualSalary: '480000', employmentStart: '2024-03-01' }],
  };
}

/** A capital insurance of APPLICANT, applied for, signed by APPLICANT with BankID and issued today. */
export async function issueInsurance(b: Bench): Promise<string> {
  const issued = await submitSigned<{ applicationId: string; status: string; signCaseId: string; insuranceId: string }>(
    restInject(b), b.bankid.server, '/InsuranceApplication', insuranceApplication(),
  );
  assert.equal(issued.status, 'issued');
  return issued.insuranceId;
}

/** An application, signed, that the review rules (api.review.singlePremiumAbove) send to staff. */
export async function applicationUnderReview(b: Bench): Promise<string> {
  const signed = await submitSigned<{ applicationId: string; status: string; signCaseId: string }>(
    restInject(b), b.bankid.server, '/InsuranceApplication', insuranceApplication('200000.00'),
  );
  assert.equal(signed.status, 'under-review');
  return signed.applicationId;
}

/** A new insurance of APPLICANT worth 100,000 SEK as its custodian reported yesterday: it allows a withdrawal. */
export async function withdrawableInsurance(b: Bench): Promise<string> {
  const insurance = await issueInsurance(b);
  await b.gateway.deps.db.query(
    `INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
     SELECT custody_account, '2026-11-21', 0, 100000, 100000, 1, 'concurrent-writes' FROM insurances WHERE insurance_number = $1`, [insurance],
  );
  return insurance;
}

/** The insurance's maximum today and an amount of which some, not all, of 20 requests fit (about 6). */
export async function amountOfWhichSomeFit(b: Bench, insurance: string): Promise<{ maximum: string; amount: string; fit: number }> {
  const information = await withdrawalInformation(b, insurance);
  assert.equal(information.requested, '0.00');
  const maximum = cents(information.maximum);
  const amount = Math.floor((maximum * 2) / 13);
  return { maximum: information.maximum, amount: sek(amount), fit: Math.floor(maximum / amount) };
}

/** What the insurance's withdrawal information says after `fit` requests of `amount`: never more requested than the maximum read before. */
export async function expectRequested(b: Bench, insurance: string, maximumBefore: string, amount: string, fit: number): Promise<void> {
  const after = await withdrawalInformation(b, insurance);
  assert.equal(after.requested, sek(fit * cents(amount)), 'every request made is counted');
  assert.ok(cents(after.requested) <= cents(maximumBefore), `requested ${after.requested}, at most ${maximumBefore}`);
  assert.equal(after.maximum, sek(cents(maximumBefore) - fit * cents(amount)));
  assert.equal(await count(b, 'SELECT count(*) AS n FROM withdrawal_requests WHERE insurance_number = $1', [insurance]), fit, 'a refused request saves nothing');
}

async function withdrawalInformation(b: Bench, insurance: string): Promise<{ maximum: string; requested: string }> {
  return json(await expectStatus(b, restCall(b, 0, 'GET', `/Insurance/${insurance}/withdrawalInformation`), 200));
}

export async function requestWithdrawal(b: Bench, insurance: string, amount: string): Promise<{ requestId: string; signCaseId: string }> {
  return json(await expectStatus(b, restCall(b, 0, 'POST', '/Insurance/withdrawalrequest', { insuranceNumber: insurance, amount, accountNumber: VALIDATED_ACCOUNT }), 201));
}

/** Starts the policyholder's BankID order and has APPLICANT sign it at BankID (not yet collected); its orderRef. */
export async function signedByApplicant(b: Bench, signCaseId: string): Promise<string> {
  return signedAtBankIdAs(b, signCaseId, { role: 'policyholder' }, APPLICANT);
}

/** Starts a signatory's BankID order and has `person` sign it at BankID (not yet collected); its orderRef. */
export async function signedAtBankIdAs(b: Bench, signCaseId: string, signatory: { role: string; personalNumber?: string }, person: LocalPerson): Promise<string> {
  const started = await expectStatus(b, restCall(b, 0, 'POST', `/SignCase/${signCaseId}/Sign`, { ...signatory, endUserIp: '192.0.2.10' }), 201);
  const { orderRef } = json<{ orderRef: string }>(started);
  b.bankid.server.control.signThrough(orderRef, person);
  return orderRef;
}

/** Has APPLICANT sign the order at BankID (not yet collected). */
export function signedAtBankId(b: Bench, orderRef: string): void {
  b.bankid.server.control.signThrough(orderRef, APPLICANT);
}

/** The policyholder's signing link (POST /SignCase/{id}/Link): its token. */
export async function signingLinkToken(b: Bench, signCaseId: string): Promise<string> {
  const made = await expectStatus(b, restCall(b, 0, 'POST', `/SignCase/${signCaseId}/Link`, { role: 'policyholder' }), 201);
  return new URL(json<{ url: string }>(made).url).searchParams.get('t')!;
}

/** A form of the signing page, posted as its browser posts it. */
export function signingPageForm(path: string, form: Record<string, string>): Call {
  return { path, init: { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() } };
}

/**
 * A message dead in its deliver stage, as happens when a counterparty's outbox is
 * broken: processed, its response undeliverable after every attempt (the folder is set
 * aside and a file put in its place). The outbox is restored before the replay.
 */
export async function deadMessage(b: Bench, name: string): Promise<string> {
  const outbox = b.gateway.outbox('demo-employer');
  await setAside(outbox);
  try {
    const document = salaryAdjustment({ messageId: `BURST-DEAD-${name}` }, [{ pin: '197607151235', date: '2026-12-01', salary: name === 'api' ? '523456.00' : '534567.00' }]);
    const posted = await expectStatus(b, {
      path: `/api/messages?from=demo-employer&name=dead-${name}.xml`, init: { method: 'POST', headers: { authorization: STAFF_BASIC, 'content-type': 'application/xml' }, body: document },
    }, 202);
    const { messageId } = json<{ messageId: string }>(posted);
    await waitFor(async () => (await rows<{ status: string }>(b, 'SELECT status FROM messages WHERE id = $1', [messageId]))[0]?.status === 'dead', 'the message dead in deliver', 30_000);
    return messageId;
  } finally {
    await rm(outbox, { force: true });
    await rename(`${outbox}.aside`, outbox);
  }
}

/**
 * Moves the outbox aside and puts a file in its place. An answer delivered meanwhile (a
 * delivery makes a missing outbox again) is moved to the others and the folder put aside
 * again.
 */
async function setAside(outbox: string): Promise<void> {
  await rename(outbox, `${outbox}.aside`);
  for (;;) {
    try {
      await writeFile(outbox, 'not a folder', { flag: 'wx' });
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST' && code !== 'EISDIR') throw error;
    }
    for (const name of await readdir(outbox)) await rename(join(outbox, name), join(`${outbox}.aside`, name));
    await rmdir(outbox).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOTEMPTY') throw error;
    });
  }
}

// --- the console

/** The sign-in form: its cookie and CSRF field. */
export async function signInForm(b: Bench): Promise<{ cookie: string; csrf: string }> {
  const form = await expectStatus(b, { path: '/console/sign-in' }, 200);
  return { cookie: cookieOf(form.headers.getSetCookie(), 'dg_sign_in_form'), csrf: csrfOf(form.text) };
}

interface ConsoleSession {
  readonly cookie: string;
  readonly csrf: string;
}

/** A signed-in console session: its cookie and the CSRF token its forms carry (read from the session's row). */
export async function consoleSession(b: Bench): Promise<ConsoleSession> {
  const form = await signInForm(b);
  const signedIn = await expectStatus(b, {
    path: '/console/sign-in',
    init: { method: 'POST', headers: { cookie: form.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ _csrf: form.csrf, next: '/console', username: 'staff', password: 'test-password' }).toString() },
  }, 303);
  const cookie = cookieOf(signedIn.headers.getSetCookie(), 'dg_staff_session');
  const [session] = await rows<{ csrf: string }>(b, 'SELECT csrf_token AS csrf FROM staff_sessions WHERE token_sha256 = $1', [sha256(cookie.split('=')[1]!)]);
  return { cookie, csrf: session!.csrf };
}

/** A console form posted with the session's cookie and CSRF token. */
export function consoleForm(session: ConsoleSession, path: string, fields: Record<string, string>): Call {
  return {
    path,
    init: { method: 'POST', headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ _csrf: session.csrf, ...fields }).toString() },
  };
}

// --- small things

function cents(amount: string): number {
  const [kronor = '0', ore = ''] = amount.split('.');
  return Number(kronor) * 100 + Number(ore.padEnd(2, '0').slice(0, 2));
}

function sek(amountInOre: number): string {
  return `${Math.floor(amountInOre / 100)}.${String(amountInOre % 100).padStart(2, '0')}`;
}

export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** What a BankID order shows the signer (its userVisibleData, base64). */
export function visibleText(userVisibleData: string): string {
  return Buffer.from(userVisibleData, 'base64').toString('utf8');
}

/** A personnummer born on `birth` (YYYYMMDD) with serial `serial` (three digits) and its check digit. */
export function personnummer(birth: string, serial: number): string {
  const nine = `${birth.slice(2)}${String(serial).padStart(3, '0')}`;
  const sum = [...nine].reduce((total, digit, index) => {
    const product = Number(digit) * (index % 2 === 0 ? 2 : 1);
    return total + (product > 9 ? product - 9 : product);
  }, 0);
  return `${birth}${nine.slice(6)}${(10 - (sum % 10)) % 10}`;
}
