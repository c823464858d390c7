/**
 * Every route that writes, 20 requests at once, on both databases: the embedded one
 * (PGlite, one connection) and PostgreSQL with the default pool of 20 connections. Issue
 * 27 was a route that opened a transaction and then used the outer database handle: on
 * the embedded database one request hung the gateway for good, on PostgreSQL a burst
 * held every pool connection, /readyz went 503 and requests failed with 500 — missed
 * because the route was tested on one database and never under concurrency.
 *
 * The routes come from the server itself (`servedRoutes`: every method but GET and HEAD,
 * except the queue dashboard's /admin/queues/*, which writes to Redis only), and each
 * needs a row here, so a writing route added later fails the test until it has one. A
 * row prepares what its route needs (with a route or SQL), sends 20 requests over real
 * HTTP at once while GET /readyz is asked every 100 ms (test/support/http-burst.ts:
 * every request answered, none 500 or 503, every poll 200 within 2.5 s), asserts every
 * answer's status (and code) and then the ledger: exactly one of a thing only one may
 * have, none of the others lost.
 *
 * The REST API's requests are spread over two clients of the same advisor firm, ten
 * each: a client may have fewer requests in flight than the pool has connections
 * (api.limits.concurrentRequests below databasePoolSize), and the limits are set so
 * that none of the 20 is refused 429 — the burst tests the routes, not the limiter —
 * while the 20 together still meet the default pool of 20. The gateway, its setup and
 * what the rows share are in test/support/write-bench.ts. Each burst prints its figures
 * (slowest answer, slowest /readyz, longest event-loop block).
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { hashSecret } from '../src/config/secret-hash.ts';
import { waitFor, type TestGatewayOptions } from './support/harness.ts';
import { startTestBankId, type TestBankId } from './support/bankid.ts';
import { cookieOf } from './support/console-session.ts';
import { changeFee, salaryAdjustment } from './support/documents.ts';
import { envelope, signEnvelope } from './support/ssek-envelopes.ts';
import { burst, json, send, tally } from './support/http-burst.ts';
import { startSmtpSink, type SmtpSink } from './support/smtp-sink.ts';
import {
  AT_ONCE, CLIENTS, CUSTOMER, FIRM, ORGANISATION, PLAN_EMPLOYER, STAFF_BASIC, TODAY, VALIDATED_ACCOUNT,
  amountOfWhichSomeFit, applicationHistory, applicationUnderReview, consoleForm, consoleSession, count, countBy, custodianCall, deadMessage,
  expectReportsApplied, expectRequested, expectStatus, insuranceApplication, issueInsurance, openBench, personnummer, planApplication, replays,
  requestWithdrawal, restCall, rows, sha256, signInForm, signedAtBankId, signedAtBankIdAs, signedByApplicant, signingLinkToken, signingPageForm, staffCall, times, tokenCall,
  visibleText, withdrawableInsurance, withdrawalEvents, EMPLOYER_SIGNATORY, type Bench,
} from './support/write-bench.ts';

/** Each route that writes: prepare, 20 at once, then every answer and the ledger. */
const ROWS: Readonly<Record<string, (bench: Bench) => Promise<void>>> = {
  'POST /oauth/token': async (b) => {
    const { answers } = await b.burst(times((i) => tokenCall(CLIENTS[i % CLIENTS.length]!)));
    assert.deepEqual(tally(answers), { 200: AT_ONCE });
    const products = await Promise.all(answers.map((answer) => send(b.base, { path: '/Product', init: { headers: { authorization: `Bearer ${json<{ access_token: string }>(answer).access_token}` } } })));
    assert.deepEqual(tally(products), { 200: AT_ONCE }, 'each token issued in the burst is accepted');
  },

  'POST /InsuranceApplication/validation': async (b) => {
    const before = await count(b, 'SELECT count(*) AS n FROM applications');
    const { answers } = await b.burst(times((i) => restCall(b, i, 'POST', '/InsuranceApplication/validation', insuranceApplication())));
    assert.deepEqual(tally(answers), { 200: AT_ONCE });
    assert.ok(answers.every((answer) => json<{ valid: boolean }>(answer).valid));
    assert.equal(await count(b, 'SELECT count(*) AS n FROM applications'), before, 'a check saves nothing');
  },

  'POST /InsuranceApplication': async (b) => {
    const { answers } = await b.burst(times((i) => restCall(b, i, 'POST', '/InsuranceApplication', insuranceApplication())));
    assert.deepEqual(tally(answers), { 201: AT_ONCE });
    const submitted = answers.map((answer) => json<{ applicationId: string; status: string; signCaseId: string; insuranceId: string | null }>(answer));
    assert.deepEqual(countBy(submitted.map((application) => `${application.status}, ${application.insuranceId}`)), { 'awaiting-signature, null': AT_ONCE }, 'nothing issued unsigned');
    assert.equal(new Set(submitted.map((application) => application.signCaseId)).size, AT_ONCE, 'each its own sign case');
    assert.equal(await count(b, 'SELECT count(*) AS n FROM insurances WHERE created_by_message = ANY($1)', [submitted.map((application) => application.applicationId)]), 0);
    // Each signed at BankID, then the 20 signatures collected at once: each issued as its own insurance, with its own custody account.
    const orderRefs: string[] = [];
    for (const application of submitted) orderRefs.push(await signedByApplicant(b, application.signCaseId));
    const collected = await b.burst(submitted.map((application, i) => restCall(b, i, 'POST', `/SignCase/${application.signCaseId}/Collect`, { orderRef: orderRefs[i] })));
    assert.deepEqual(tally(collected.answers), { 200: AT_ONCE });
    assert.deepEqual(countBy(collected.answers.map((answer) => json<{ status: string }>(answer).status)), { complete: AT_ONCE });
    const issued = await rows<{ application_id: string; status: string; insurance_number: string | null }>(b,
      'SELECT application_id, status, insurance_number FROM applications WHERE application_id = ANY($1)', [submitted.map((application) => application.applicationId)]);
    assert.deepEqual(countBy(issued.map((application) => application.status)), { issued: AT_ONCE });
    assert.equal(new Set(issued.map((application) => application.insurance_number)).size, AT_ONCE, 'each its own insurance');
    const ledger = await rows<{ insurance_number: string; custody_account: string }>(b,
      'SELECT insurance_number, custody_account FROM insurances WHERE created_by_message = ANY($1)', [submitted.map((application) => application.applicationId)]);
    assert.deepEqual(ledger.map((row) => row.insurance_number).sort(), issued.map((application) => application.insurance_number).sort());
    assert.equal(new Set(ledger.map((row) => row.custody_account)).size, AT_ONCE, 'each its own custody account');
  },

  'POST /PlanApplication/validation': async (b) => {
    const before = await count(b, 'SELECT count(*) AS n FROM applications');
    const { answers } = await b.burst(times((i) => restCall(b, i, 'POST', '/PlanApplication/validation', planApplication())));
    assert.deepEqual(tally(answers), { 200: AT_ONCE });
    assert.ok(answers.every((answer) => json<{ valid: boolean }>(answer).valid));
    assert.equal(await count(b, 'SELECT count(*) AS n FROM applications'), before, 'a check saves nothing');
  },

  'POST /PlanApplication': async (b) => {
    // The same employer's plan 20 times, each awaiting the employer's signatory. Signed at BankID and the 20 signatures collected
    // at once: the first decided is issued; an employer that already has an agreement is reviewed.
    const { answers } = await b.burst(times((i) => restCall(b, i, 'POST', '/PlanApplication', planApplication())));
    assert.deepEqual(tally(answers), { 201: AT_ONCE });
    const submitted = answers.map((answer) => json<{ applicationId: string; status: string; signCaseId: string }>(answer));
    assert.deepEqual(countBy(submitted.map((application) => application.status)), { 'awaiting-signature': AT_ONCE });
    assert.equal(await count(b, 'SELECT count(*) AS n FROM agreements WHERE employer_organisation_number = $1', [PLAN_EMPLOYER]), 0, 'nothing issued unsigned');
    const signatory = { role: 'company-signatory', personalNumber: EMPLOYER_SIGNATORY.personalNumber };
    const orderRefs: string[] = [];
    for (const application of submitted) orderRefs.push(await signedAtBankIdAs(b, application.signCaseId, signatory, EMPLOYER_SIGNATORY));
    const collected = await b.burst(submitted.map((application, i) => restCall(b, i, 'POST', `/SignCase/${application.signCaseId}/Collect`, { orderRef: orderRefs[i] })));
    assert.deepEqual(tally(collected.answers), { 200: AT_ONCE });
    assert.deepEqual(countBy(collected.answers.map((answer) => json<{ status: string }>(answer).status)), { complete: AT_ONCE });
    const decided = await rows<{ status: string }>(b, 'SELECT status FROM applications WHERE application_id = ANY($1)', [submitted.map((application) => application.applicationId)]);
    const outcome = {
      statuses: countBy(decided.map((application) => application.status)),
      agreements: await count(b, 'SELECT count(*) AS n FROM agreements WHERE employer_organisation_number = $1', [PLAN_EMPLOYER]),
    };
    assert.deepEqual(outcome, { statuses: { issued: 1, 'under-review': AT_ONCE - 1 }, agreements: 1 }, 'one plan issued with one agreement; the others reviewed, as the employer has an agreement by then');
  },

  'POST /Customer/:customerNumber/WithdrawalAccount': async (b) => {
    const { answers } = await b.burst(times((i) => restCall(b, i, 'POST', '/Customer/50001234560/WithdrawalAccount', { customerId: CUSTOMER })));
    assert.deepEqual(tally(answers), { 202: 1, 200: AT_ONCE - 1 });
    assert.equal(new Set(answers.map((answer) => json<{ registrationId: string }>(answer).registrationId)).size, 1, 'every answer shows the one registration');
    assert.equal(await count(b, `SELECT count(*) AS n FROM withdrawal_accounts WHERE customer_id = $1 AND account_digits = '50001234560'`, [CUSTOMER]), 1);
  },

  'POST /Insurance/withdrawalrequest': async (b) => {
    const insurance = await withdrawableInsurance(b);
    const { maximum, amount, fit } = await amountOfWhichSomeFit(b, insurance);
    const { answers } = await b.burst(times((i) => restCall(b, i, 'POST', '/Insurance/withdrawalrequest', { insuranceNumber: insurance, amount, accountNumber: VALIDATED_ACCOUNT })));
    assert.deepEqual(tally(answers), { 201: fit, '422 WITHDRAWAL_AMOUNT_OUT_OF_BOUNDS': AT_ONCE - fit }, `${amount} of at most ${maximum}: ${fit} fit`);
    await expectRequested(b, insurance, maximum, amount, fit);
  },

  'POST /SignCase/:id/Sign': async (b) => {
    const insurance = await withdrawableInsurance(b);
    const { signCaseId } = await requestWithdrawal(b, insurance, '12500.00');
    const earlier = ordersAtBankId(b);
    const { answers } = await b.burst(times((i) => restCall(b, i, 'POST', `/SignCase/${signCaseId}/Sign`, { role: 'policyholder', endUserIp: '192.0.2.10' })));
    assert.deepEqual(tally(answers), { 201: 1, 200: AT_ONCE - 1 }, 'one order started; the others are given it');
    assert.equal(new Set(answers.map((answer) => json<{ orderRef: string }>(answer).orderRef)).size, 1, 'one orderRef for all');
    const orders = await rows<{ status: string }>(b, 'SELECT status FROM sign_orders WHERE sign_case_id = $1', [signCaseId]);
    assert.deepEqual(orders.map((order) => order.status), ['pending'], 'one pending order in the ledger');
    const atBankId = b.bankid.server.control.orders().filter((order) => !earlier.has(order.orderRef) && order.state.status === 'pending' && visibleText(order.request.userVisibleData).includes(insurance));
    assert.equal(atBankId.length, 1, 'one pending order at BankID: the others were cancelled');
  },

  'POST /SignCase/:id/Collect': async (b) => {
    const insurance = await withdrawableInsurance(b);
    const { requestId, signCaseId } = await requestWithdrawal(b, insurance, '12500.00');
    const orderRef = await signedByApplicant(b, signCaseId);
    const { answers } = await b.burst(times((i) => restCall(b, i, 'POST', `/SignCase/${signCaseId}/Collect`, { orderRef })));
    assert.deepEqual(tally(answers), { 200: AT_ONCE });
    assert.deepEqual(countBy(answers.map((answer) => json<{ status: string }>(answer).status)), { complete: AT_ONCE });
    assert.deepEqual(await withdrawalEvents(b, requestId), ['requested', 'signed'], 'signed once');
    assert.equal((await rows<{ status: string }>(b, 'SELECT status FROM withdrawal_requests WHERE request_id = $1', [requestId]))[0]?.status, 'signed');
  },

  'POST /SignCase/:id/Link': async (b) => {
    const insurance = await withdrawableInsurance(b);
    const { signCaseId } = await requestWithdrawal(b, insurance, '12500.00');
    const { answers } = await b.burst(times((i) => restCall(b, i, 'POST', `/SignCase/${signCaseId}/Link`, { role: 'policyholder' })));
    assert.deepEqual(tally(answers), { 201: AT_ONCE });
    assert.equal(new Set(answers.map((answer) => json<{ url: string }>(answer).url)).size, AT_ONCE, 'each its own link');
    assert.equal(await count(b, 'SELECT count(*) AS n FROM sign_links WHERE sign_case_id = $1', [signCaseId]), AT_ONCE, 'each kept');
  },

  'POST /SignCase/:id/Link/revoke': async (b) => {
    const insurance = await withdrawableInsurance(b);
    const { signCaseId } = await requestWithdrawal(b, insurance, '12500.00');
    for (let i = 0; i < 3; i += 1) await expectStatus(b, restCall(b, 0, 'POST', `/SignCase/${signCaseId}/Link`, { role: 'policyholder' }), 201);
    const { answers } = await b.burst(times((i) => restCall(b, i, 'POST', `/SignCase/${signCaseId}/Link/revoke`, { role: 'policyholder' })));
    assert.deepEqual(tally(answers), { 200: AT_ONCE });
    assert.equal(answers.reduce((sum, answer) => sum + json<{ revoked: number }>(answer).revoked, 0), 3, 'each link revoked once');
    assert.equal(await count(b, 'SELECT count(*) AS n FROM sign_links WHERE sign_case_id = $1 AND revoked_at IS NULL', [signCaseId]), 0);
  },

  'POST /sign/:signCaseId/start': async (b) => {
    const insurance = await withdrawableInsurance(b);
    const { signCaseId } = await requestWithdrawal(b, insurance, '12500.00');
    const token = await signingLinkToken(b, signCaseId);
    const earlier = ordersAtBankId(b);
    const { answers } = await b.burst(times(() => signingPageForm(`/sign/${signCaseId}/start`, { t: token, device: 'other' })));
    assert.deepEqual(tally(answers), { 303: AT_ONCE }, 'each sent to the page');
    const orders = await rows<{ status: string }>(b, 'SELECT status FROM sign_orders WHERE sign_case_id = $1', [signCaseId]);
    assert.deepEqual(orders.map((order) => order.status), ['pending'], 'one pending order in the ledger');
    const atBankId = b.bankid.server.control.orders().filter((order) => !earlier.has(order.orderRef) && order.state.status === 'pending' && visibleText(order.request.userVisibleData).includes(insurance));
    assert.equal(atBankId.length, 1, 'one pending order at BankID: the others were cancelled');
  },

  'POST /sign/:signCaseId/collect': async (b) => {
    const insurance = await withdrawableInsurance(b);
    const { requestId, signCaseId } = await requestWithdrawal(b, insurance, '12500.00');
    const token = await signingLinkToken(b, signCaseId);
    await expectStatus(b, signingPageForm(`/sign/${signCaseId}/start`, { t: token, device: 'other' }), 303);
    const [order] = await rows<{ order_ref: string }>(b, `SELECT order_ref FROM sign_orders WHERE sign_case_id = $1 AND status = 'pending'`, [signCaseId]);
    signedAtBankId(b, order!.order_ref);
    const { answers } = await b.burst(times(() => signingPageForm(`/sign/${signCaseId}/collect`, { t: token })));
    // The one signatory's signature completes the case: a request that comes after it finds its link spent (404).
    assert.equal(answers.filter((answer) => answer.status === 200 || answer.status === 404).length, AT_ONCE, JSON.stringify(tally(answers)));
    assert.ok(answers.some((answer) => answer.status === 200 && answer.text.includes('Du har signerat')), 'the signature is shown');
    assert.deepEqual(await withdrawalEvents(b, requestId), ['requested', 'signed'], 'signed once');
  },

  'POST /console/sign-cases/:id/mail-link': async (b) => {
    // Twenty mailings of the policyholder's link at once, each to its own address: each a link of its own, mailed and audited.
    const insurance = await withdrawableInsurance(b);
    const { signCaseId } = await requestWithdrawal(b, insurance, '12500.00');
    const session = await consoleSession(b);
    const addresses = times((i) => `signer${i}@example.se`);
    const mailedBefore = b.smtp.mails.length;
    const { answers } = await b.burst(addresses.map((address) => consoleForm(session, `/console/sign-cases/${signCaseId}/mail-link`, { role: 'policyholder', personalNumber: '199203033452', address })));
    assert.deepEqual(tally(answers), { 303: AT_ONCE });
    const mails = await waitFor(async () => {
      const ours = b.smtp.mails.slice(mailedBefore).filter((mail) => mail.parsed.text?.includes(`/sign/${signCaseId}?t=`));
      return ours.length >= AT_ONCE && ours;
    }, 'the 20 mails at the mail server');
    assert.deepEqual(mails.flatMap((mail) => mail.envelopeTo).sort(), [...addresses].sort(), 'one mail to each address');
    const tokens = mails.map((mail) => new URL(/(http:\/\/\S+\/sign\/\S+)/.exec(mail.parsed.text!)![1]!).searchParams.get('t')!);
    assert.equal(new Set(tokens).size, AT_ONCE, 'each its own link');
    assert.equal(await count(b, `SELECT count(*) AS n FROM sign_links WHERE sign_case_id = $1 AND created_by = 'staff:staff' AND token_hash = ANY($2)`, [signCaseId, tokens.map(sha256)]), AT_ONCE, 'each kept, by its hash');
    const audit = await rows<{ reason: string; outcome: string }>(b, `SELECT reason, outcome FROM staff_audit WHERE action = 'mail-sign-link' AND subject = $1`, [signCaseId]);
    assert.deepEqual(audit.map((entry) => `${entry.reason}: ${entry.outcome}`).sort(), addresses.map((address) => `policyholder to ${address}: done`).sort(), 'each audited');
  },

  'POST /api/withdrawal-requests': async (b) => {
    const insurance = await withdrawableInsurance(b);
    const { maximum, amount, fit } = await amountOfWhichSomeFit(b, insurance);
    const { answers } = await b.burst(times((i) => staffCall('POST', '/api/withdrawal-requests', {
      insuranceNumber: insurance, amount, accountNumber: VALIDATED_ACCOUNT, channel: 'paper-form', reference: `form 2026-${4700 + i}`,
    })));
    assert.deepEqual(tally(answers), { 201: fit, '422 WITHDRAWAL_AMOUNT_OUT_OF_BOUNDS': AT_ONCE - fit }, `${amount} of at most ${maximum}: ${fit} fit`);
    await expectRequested(b, insurance, maximum, amount, fit);
  },

  'POST /api/withdrawal-requests/:id/approve': async (b) => {
    const insurance = await withdrawableInsurance(b);
    const { requestId, signCaseId } = await requestWithdrawal(b, insurance, '12500.00');
    const orderRef = await signedByApplicant(b, signCaseId);
    await expectStatus(b, restCall(b, 0, 'POST', `/SignCase/${signCaseId}/Collect`, { orderRef }), 200);
    const { answers } = await b.burst(times(() => staffCall('POST', `/api/withdrawal-requests/${requestId}/approve`, { reason: 'checked' })));
    assert.deepEqual(tally(answers), { 200: 1, '404 RESOURCE_NOT_FOUND': AT_ONCE - 1 });
    assert.deepEqual(json(answers.find((answer) => answer.status === 200)!), { requestId, status: 'ordered' });
    assert.deepEqual(await withdrawalEvents(b, requestId), ['requested', 'signed', 'approved', 'ordered'], 'approved and ordered once');
    const [order] = await rows<{ body: string }>(b, 'SELECT body FROM outgoing_documents WHERE file_name = $1', [`withdrawal-${requestId}.DebitAccounts.xml`]);
    assert.ok(order, 'one DebitAccounts document');
    assert.match(order.body, new RegExp(`<Payout>[\\s\\S]*<ToAccount>${VALIDATED_ACCOUNT}</ToAccount>`), 'paid to the request\'s validated account');
    assert.equal(await count(b, 'SELECT count(*) AS n FROM outgoing_documents WHERE file_name = $1', [`withdrawal-${requestId}.DebitAccounts.xml`]), 1, 'only one');
  },

  'POST /api/withdrawal-requests/:id/reject': async (b) => {
    const insurance = await withdrawableInsurance(b);
    const { requestId } = await requestWithdrawal(b, insurance, '12500.00');
    const { answers } = await b.burst(times(() => staffCall('POST', `/api/withdrawal-requests/${requestId}/reject`, { reason: 'not this time' })));
    assert.deepEqual(tally(answers), { 200: 1, '404 RESOURCE_NOT_FOUND': AT_ONCE - 1 });
    assert.deepEqual(await withdrawalEvents(b, requestId), ['requested', 'rejected'], 'rejected once');
  },

  'POST /Holdings': async (b) => {
    const fixture = await readFile(join(PROJECT_ROOT, 'fixtures/Holdings/valid/all-accounts.xml'), 'utf8');
    const { answers } = await b.burst(times((i) => custodianCall('/Holdings', fixture.replace('<MessageId>HOLD-2026-11-19<', `<MessageId>HOLD-2026-11-19-${i}<`))));
    await expectReportsApplied(b, answers);
    const values = await rows<{ account_number: string; total_value: string }>(b,
      `SELECT account_number, total_value::text FROM custody_valuations WHERE as_of = '2026-11-19' AND account_number IN ('DEPA-100001', 'DEPA-100002', 'DEPA-100003') ORDER BY account_number`);
    assert.deepEqual(values.map((row) => [row.account_number, row.total_value]), [['DEPA-100001', '31301.95'], ['DEPA-100002', '41188.25'], ['DEPA-100003', '0.00']], "the day's values, once each");
  },

  'POST /Transactions': async (b) => {
    const fixture = await readFile(join(PROJECT_ROOT, 'fixtures/Transactions/valid/day.xml'), 'utf8');
    const { answers } = await b.burst(times((i) => custodianCall('/Transactions', fixture.replace('<MessageId>TRANS-2026-11-19<', `<MessageId>TRANS-2026-11-19-${i}<`))));
    await expectReportsApplied(b, answers);
    const loaded = await rows<{ transaction_id: string }>(b, `SELECT transaction_id FROM custody_transactions WHERE account_number = 'DEPA-100001' ORDER BY transaction_id`);
    assert.deepEqual(loaded.map((row) => row.transaction_id), ['TX-1001', 'TX-1002', 'TX-1003', 'TX-1004'], "the day's transactions, once each");
  },

  'POST /ssek': async (b) => {
    const txIds = times(() => crypto.randomUUID());
    const { answers } = await b.burst(txIds.map((txId, i) => ({
      path: '/ssek',
      init: {
        method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8' },
        body: signEnvelope(envelope(changeFee({ messageId: `SSEK-BURST-${txId}` }, [{ pin: '197001011233', insurance: 'INS-100001', date: `2026-12-${String(i + 1).padStart(2, '0')}`, type: 'FixedCharge', value: String(300 + i) }]), { txId }), { key: b.ssekKey }),
      },
    })));
    assert.deepEqual(tally(answers), { 200: AT_ONCE });
    assert.ok(answers.every((answer) => /<ChangeFeeResponse[\s>]|<Receipt[\s>]/.test(answer.text)), 'each answered with its response (or, after ssek.syncWaitMs, a receipt)');
    const ids = await waitFor(async () => {
      const found = await rows<{ id: string; status: string }>(b, `SELECT id, status FROM messages WHERE channel = 'ssek' AND external_id = ANY($1) AND duplicate_of IS NULL`, [txIds]);
      return found.length === AT_ONCE && found.every((row) => row.status !== 'received' && row.status !== 'validated') && found;
    }, 'the 20 SSEK documents processed', 60_000);
    assert.deepEqual(countBy(ids.map((row) => row.status)), { applied: AT_ONCE });
    assert.equal(await count(b, 'SELECT count(*) AS n FROM insurance_fees WHERE message_id = ANY($1)', [ids.map((row) => row.id)]), AT_ONCE, 'each fee change in the ledger');
  },

  'POST /api/messages': async (b) => {
    // The same document 20 times: one is processed, the others are recorded as its duplicates.
    const document = salaryAdjustment({ messageId: 'BURST-SALARY' }, [{ pin: '199003031235', date: '2026-12-01', salary: '612345.00' }]);
    const { answers } = await b.burst(times((i) => ({
      path: `/api/messages?from=demo-employer&name=burst-${i}.xml`, init: { method: 'POST', headers: { authorization: STAFF_BASIC, 'content-type': 'application/xml' }, body: document },
    })));
    assert.deepEqual(tally(answers), { 202: AT_ONCE });
    const receipts = answers.map((answer) => json<{ messageId: string; status: string; duplicateOf?: string }>(answer));
    assert.deepEqual(countBy(receipts.map((receipt) => receipt.status)), { received: 1, duplicate: AT_ONCE - 1 });
    const original = receipts.find((receipt) => receipt.status === 'received')!.messageId;
    assert.ok(receipts.every((receipt) => receipt.status === 'received' || receipt.duplicateOf === original), 'each duplicate names the original');
    await waitFor(async () => (await rows<{ status: string }>(b, 'SELECT status FROM messages WHERE id = $1', [original]))[0]?.status === 'applied', 'the original applied', 30_000);
    assert.equal(await count(b, 'SELECT count(*) AS n FROM salaries WHERE annual_salary = 612345'), 1, 'applied once');
  },

  'POST /api/messages/:id/replay': async (b) => {
    const dead = await deadMessage(b, 'api');
    const { answers } = await b.burst(times(() => staffCall('POST', `/api/messages/${dead}/replay`)));
    assert.deepEqual(tally(answers), { 200: 1, '409 MESSAGE_NOT_REPLAYABLE': AT_ONCE - 1 });
    assert.equal(await replays(b, dead), 1, 'replayed once');
  },

  'POST /console/sign-in': async (b) => {
    const forms = await Promise.all(times(() => signInForm(b)));
    const { answers } = await b.burst(forms.map((form) => ({
      path: '/console/sign-in',
      init: { method: 'POST', headers: { cookie: form.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ _csrf: form.csrf, next: '/console', username: 'staff', password: 'test-password' }).toString() },
    })));
    assert.deepEqual(tally(answers), { 303: AT_ONCE });
    const tokens = answers.map((answer) => cookieOf(answer.headers.getSetCookie(), 'dg_staff_session').split('=')[1]!);
    assert.equal(await count(b, 'SELECT count(*) AS n FROM staff_sessions WHERE token_sha256 = ANY($1)', [tokens.map(sha256)]), AT_ONCE, 'a session each');
  },

  'POST /console/sign-out': async (b) => {
    const sessions = await Promise.all(times(() => consoleSession(b)));
    const { answers } = await b.burst(sessions.map((session) => consoleForm(session, '/console/sign-out', {})));
    assert.deepEqual(tally(answers), { 303: AT_ONCE });
    assert.ok(answers.every((answer) => answer.headers.get('location') === '/console/sign-in'));
    assert.equal(await count(b, 'SELECT count(*) AS n FROM staff_sessions WHERE token_sha256 = ANY($1)', [sessions.map((session) => sha256(session.cookie.split('=')[1]!))]), 0, 'every session ended');
  },

  'POST /console/messages/:id/replay': async (b) => {
    const dead = await deadMessage(b, 'console');
    const session = await consoleSession(b);
    const { answers } = await b.burst(times(() => consoleForm(session, `/console/messages/${dead}/replay`, { reason: 'the outbox is back' })));
    assert.deepEqual(tally(answers), { 303: 1, 409: AT_ONCE - 1 });
    assert.equal(await replays(b, dead), 1, 'replayed once');
    const audit = await rows<{ outcome: string }>(b, `SELECT outcome FROM staff_audit WHERE subject = $1 AND action = 'replay'`, [dead]);
    assert.deepEqual(countBy(audit.map((row) => (row.outcome === 'done' ? 'done' : 'refused'))), { done: 1, refused: AT_ONCE - 1 }, 'every attempt audited');
  },

  'POST /api/insurances/:number/end': async (b) => {
    const insurance = await withdrawableInsurance(b);
    const { answers } = await b.burst(times(() => staffCall('POST', `/api/insurances/${insurance}/end`, { cause: 'death', date: TODAY })));
    assert.deepEqual(tally(answers), { 201: 1, '409 INSURANCE_ALREADY_ENDED': AT_ONCE - 1 });
    assert.ok(json<{ deathBenefit?: unknown }>(answers.find((answer) => answer.status === 201)!).deathBenefit, 'the death benefit of repayment protection');
    assert.equal(await count(b, 'SELECT count(*) AS n FROM death_benefits WHERE insurance_number = $1', [insurance]), 1, 'one death benefit');
    assert.deepEqual(await rows(b, 'SELECT end_date::text AS "endDate", end_cause AS cause FROM insurances WHERE insurance_number = $1', [insurance]), [{ endDate: TODAY, cause: 'death' }]);
  },

  'POST /api/insurances/:number/death-benefit/beneficiary': async (b) => {
    const insurance = await withdrawableInsurance(b);
    await expectStatus(b, staffCall('POST', `/api/insurances/${insurance}/end`, { cause: 'death', date: TODAY }), 201);
    // Twenty recordings at once, each a correction of the one before: every one answered, each kept in the history, one in force.
    const names = times((i) => `Beneficiary ${i + 1}`);
    const { answers } = await b.burst(names.map((name) => staffCall('POST', `/api/insurances/${insurance}/death-benefit/beneficiary`, { name, account: VALIDATED_ACCOUNT })));
    assert.deepEqual(tally(answers), { 200: AT_ONCE });
    const history = await rows<{ name: string; recorded_by: string }>(b, 'SELECT name, recorded_by FROM death_benefit_beneficiaries WHERE insurance_number = $1 ORDER BY id', [insurance]);
    assert.deepEqual([history.length, new Set(history.map((row) => row.name)).size, new Set(history.map((row) => row.recorded_by))], [AT_ONCE, AT_ONCE, new Set(['staff:staff'])]);
    const current = await rows<{ name: string; account: string }>(b, 'SELECT beneficiary_name AS name, beneficiary_account AS account FROM death_benefits WHERE insurance_number = $1', [insurance]);
    assert.deepEqual(current, [{ name: history.at(-1)!.name, account: VALIDATED_ACCOUNT }], 'the last recording is the one in force');
  },

  'POST /api/insurances/:number/payout': async (b) => {
    const insurance = await issueInsurance(b);
    await b.gateway.deps.db.query(`UPDATE insurances SET payout_from = '2026-01-01' WHERE insurance_number = $1`, [insurance]);
    // To the insured's validated account (the insured is the applicant).
    const { answers } = await b.burst(times(() => staffCall('POST', `/api/insurances/${insurance}/payout`, { period: '10y', firstMonth: '2026-12', withdrawalAccount: VALIDATED_ACCOUNT })));
    assert.deepEqual(tally(answers), { 201: 1, '409 PAYOUT_ALREADY_REGISTERED': AT_ONCE - 1 });
    assert.equal(await count(b, 'SELECT count(*) AS n FROM payouts WHERE insurance_number = $1', [insurance]), 1, 'one payout');
  },

  'POST /Insurance/:insuranceNumber/payoutrequest': async (b) => {
    const insurance = await issueInsurance(b);
    await b.gateway.deps.db.query(`UPDATE insurances SET payout_from = '2026-01-01' WHERE insurance_number = $1`, [insurance]);
    const { answers } = await b.burst(times((i) => restCall(b, i, 'POST', `/Insurance/${insurance}/payoutrequest`, { period: '10y', firstMonth: '2026-12', accountNumber: VALIDATED_ACCOUNT })));
    assert.deepEqual(tally(answers), { 201: AT_ONCE }, 'each made, each replacing the one before');
    const made = await rows<{ status: string; closed: boolean }>(b,
      `SELECT r.status, c.closed_at IS NOT NULL AS closed FROM payout_requests r JOIN sign_cases c ON c.subject_kind = 'payout' AND c.subject_id = r.request_id WHERE r.insurance_number = $1`, [insurance]);
    assert.deepEqual(countBy(made.map((request) => `${request.status}, sign case ${request.closed ? 'closed' : 'open'}`)), { 'requested, sign case open': 1, 'closed, sign case closed': AT_ONCE - 1 }, 'one open request');
    assert.equal(await count(b, `SELECT count(*) AS n FROM payout_request_events e JOIN payout_requests r USING (request_id) WHERE r.insurance_number = $1 AND e.event = 'closed'`, [insurance]), AT_ONCE - 1, 'each closed once');
  },

  'POST /Insurance/:insuranceNumber/custodianswitch': async (b) => {
    const insurance = await issueInsurance(b);
    const { answers } = await b.burst(times((i) => restCall(b, i, 'POST', `/Insurance/${insurance}/custodianswitch`, { toCustodian: 'north-custodian' })));
    assert.deepEqual(tally(answers), { 201: 1, '422 CUSTODIAN_SWITCH_NOT_ALLOWED': AT_ONCE - 1 }, 'one open switch per insurance');
    assert.equal(await count(b, `SELECT count(*) AS n FROM custodian_switches s JOIN sign_cases c ON c.subject_kind = 'custodian-switch' AND c.subject_id = s.switch_id WHERE s.insurance_number = $1`, [insurance]), 1, 'one switch, one sign case');
  },

  'POST /api/custodian-switches': async (b) => {
    const insurance = await issueInsurance(b);
    const { answers } = await b.burst(times((i) => staffCall('POST', '/api/custodian-switches', { insuranceNumber: insurance, toCustodian: 'north-custodian', channel: 'paper-form', reference: `form ${i}` })));
    assert.deepEqual(tally(answers), { 201: 1, '422 CUSTODIAN_SWITCH_NOT_ALLOWED': AT_ONCE - 1 });
    assert.equal(await count(b, 'SELECT count(*) AS n FROM custodian_switches WHERE insurance_number = $1', [insurance]), 1);
  },

  'POST /api/custodian-switches/:id/close': async (b) => {
    const insurance = await issueInsurance(b);
    const made = await expectStatus(b, staffCall('POST', '/api/custodian-switches', { insuranceNumber: insurance, toCustodian: 'north-custodian', channel: 'e-service', reference: 'case 1' }), 201);
    const { switchId } = json<{ switchId: string }>(made);
    const { answers } = await b.burst(times(() => staffCall('POST', `/api/custodian-switches/${switchId}/close`, { reason: 'given up' })));
    assert.deepEqual(tally(answers), { 200: 1, '404 RESOURCE_NOT_FOUND': AT_ONCE - 1 });
    assert.equal(await count(b, `SELECT count(*) AS n FROM custodian_switch_events WHERE switch_id = $1 AND event = 'closed'`, [switchId]), 1, 'closed once');
  },

  'POST /console/custodian-switches': async (b) => {
    const insurance = await issueInsurance(b);
    const session = await consoleSession(b);
    const { answers } = await b.burst(times((i) => consoleForm(session, '/console/custodian-switches', { insuranceNumber: insurance, toCustodian: 'north-custodian', channel: 'paper-form', reference: `form ${i}` })));
    assert.deepEqual(tally(answers), { 201: 1, 422: AT_ONCE - 1 });
    assert.equal(await count(b, `SELECT count(*) AS n FROM custodian_switch_events e JOIN custodian_switches s USING (switch_id) WHERE s.insurance_number = $1 AND e.event = 'requested' AND e.by = 'staff:staff'`, [insurance]), 1);
  },

  'POST /api/insurances/:number/transfer-money': async (b) => {
    // An insurer's leaflet registers a transfer in, awaiting its money; twenty staff record the money at once.
    const leaflet = await readFile(join(PROJECT_ROOT, 'fixtures', 'TransferLeaflet', 'valid', 'private-pension-moves-in.xml'), 'utf8');
    const sent = await expectStatus(b, { path: '/api/messages?from=demo-insurer&name=leaflet-in.xml', init: { method: 'POST', headers: { authorization: STAFF_BASIC, 'content-type': 'application/xml' }, body: leaflet } }, 202);
    const { messageId } = json<{ messageId: string }>(sent);
    const insurance = await waitFor(async () => (await rows<{ insurance_number: string }>(b, 'SELECT insurance_number FROM transfer_leaflets_in WHERE message_id = $1', [messageId]))[0]?.insurance_number, 'the transfer in registered');
    const { answers } = await b.burst(times(() => staffCall('POST', `/api/insurances/${insurance}/transfer-money`, { date: TODAY, custodian: 'demo-custodian' })));
    assert.deepEqual(tally(answers), { 201: 1, '409 TRANSFER_MONEY_ALREADY_RECORDED': AT_ONCE - 1 });
    assert.equal(await count(b, 'SELECT count(*) AS n FROM custody_accounts WHERE account_number = (SELECT custody_account FROM insurances WHERE insurance_number = $1)', [insurance]), 1, 'one custody account');
    assert.equal(await count(b, 'SELECT count(*) AS n FROM transfer_leaflets_in WHERE insurance_number = $1 AND money_received_on IS NOT NULL', [insurance]), 1);
  },

  'POST /api/invoice-specifications': async (b) => {
    // A month the calendar has not made (it made the last two at start): made once, whoever asks first.
    const { answers } = await b.burst(times(() => staffCall('POST', '/api/invoice-specifications', { month: '2026-08' })));
    assert.deepEqual(tally(answers), { 201: 1, 200: AT_ONCE - 1 });
    const made = json<{ created: { documentId: string }[] }>(answers.find((answer) => answer.status === 201)!).created;
    assert.ok(made.length > 0);
    assert.ok(answers.filter((answer) => answer.status === 200).every((answer) => json<{ created: unknown[] }>(answer).created.length === 0), 'the repeats make nothing new');
    assert.equal(await count(b, `SELECT count(*) AS n FROM invoice_specifications WHERE month = '2026-08'`), made.length, 'one per agreement');
  },

  'POST /api/invoice-specifications/:id/send-again': async (b) => {
    const [spec] = await rows<{ document_id: string }>(b, 'SELECT document_id FROM invoice_specifications ORDER BY document_id LIMIT 1');
    assert.ok(spec, 'a specification made at start');
    const { answers } = await b.burst(times((i) => staffCall('POST', `/api/invoice-specifications/${spec.document_id}/send-again`, { reason: `asked again ${i}` })));
    assert.deepEqual(tally(answers), { 202: AT_ONCE });
    assert.equal(await count(b, `SELECT count(*) AS n FROM staff_audit WHERE action = 'send-again' AND subject = $1 AND reason LIKE 'asked again %'`, [spec.document_id]), AT_ONCE, 'each audited');
  },

  'POST /console/invoice-specifications/:id/send-again': async (b) => {
    const [spec] = await rows<{ document_id: string }>(b, 'SELECT document_id FROM invoice_specifications ORDER BY document_id DESC LIMIT 1');
    assert.ok(spec, 'a specification made at start');
    const session = await consoleSession(b);
    const { answers } = await b.burst(times((i) => consoleForm(session, `/console/invoice-specifications/${spec.document_id}/send-again`, { reason: `console ${i}` })));
    assert.deepEqual(tally(answers), { 303: AT_ONCE });
    assert.equal(await count(b, `SELECT count(*) AS n FROM staff_audit WHERE action = 'send-again' AND subject = $1 AND reason LIKE 'console %'`, [spec.document_id]), AT_ONCE, 'each audited');
  },

  'POST /api/debit-runs': async (b) => {
    // The custodian reported the demo accounts' values at the end of Q3, as its Holdings would.
    await b.gateway.deps.db.query(`INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
      SELECT account_number, '2026-09-30', 5000, 95000, 100000, 1, 'concurrent-writes' FROM custody_accounts WHERE custodian_id = 'demo-custodian' ON CONFLICT DO NOTHING`);
    const { answers } = await b.burst(times(() => staffCall('POST', '/api/debit-runs', { year: 2026, quarter: 3 })));
    assert.deepEqual(tally(answers), { 201: 1, 200: AT_ONCE - 1 }, 'one run made');
    const made = json<{ created: { custodianId: string; documentId: string }[]; delivered: { documentId: string; target: string }[]; undelivered: string[] }>(answers.find((answer) => answer.status === 201)!);
    assert.deepEqual(made.created.map((run) => [run.custodianId, run.documentId]), [['demo-custodian', 'DA-2026-Q3-demo-custodian']]);
    assert.ok(answers.filter((answer) => answer.status === 200).every((answer) => json<{ created: unknown[] }>(answer).created.length === 0), 'the repeats make nothing new');
    assert.deepEqual([made.undelivered, made.delivered.map((delivery) => delivery.documentId)], [[], ['DA-2026-Q3-demo-custodian']], "delivered by the gateway's worker before the answer");
    assert.match(await readFile(made.delivered[0]!.target, 'utf8'), /<DebitAccounts[\s>]/);
    assert.equal(await count(b, `SELECT count(*) AS n FROM debit_runs WHERE run_key = '2026-Q3'`), 1, 'one run row');
    assert.equal(await count(b, `SELECT count(*) AS n FROM outgoing_documents WHERE counterparty_id = 'demo-custodian' AND file_name = 'debit-run-2026-Q3.DebitAccounts.xml'`), 1, 'one document');
  },

  'POST /api/payout-runs': async (b) => {
    // An insurance in payout from December over ten years, to the insured's validated account.
    const insurance = await withdrawableInsurance(b);
    await b.gateway.deps.db.query(`INSERT INTO payouts (insurance_number, start_month, months, created_at, withdrawal_account, registered_by)
                                   VALUES ($1, '2026-12', 120, now(), $2, 'staff:staff')`, [insurance, VALIDATED_ACCOUNT]);
    const { answers } = await b.burst(times(() => staffCall('POST', '/api/payout-runs', { month: '2026-12' })));
    assert.deepEqual(tally(answers), { 201: 1, 200: AT_ONCE - 1 }, 'one run made');
    assert.ok(answers.filter((answer) => answer.status === 200).every((answer) => json<{ created: unknown[] }>(answer).created.length === 0), 'the repeats make nothing new');
    assert.deepEqual(await rows(b, 'SELECT installment, amount::text AS amount FROM payout_orders WHERE insurance_number = $1', [insurance]), [{ installment: 1, amount: '833.33' }], 'one installment: 100,000 over 120 months');
    assert.equal(await count(b, `SELECT count(*) AS n FROM outgoing_documents WHERE counterparty_id = 'demo-custodian' AND file_name = 'payout-2026-12.DebitAccounts.xml'`), 1, 'one document');
  },

  'POST /api/powers-of-attorney': async (b) => {
    const customers = times((i) => personnummer('19800101', 100 + i));
    const { answers } = await b.burst(customers.map((customerId) => staffCall('POST', '/api/powers-of-attorney', { holderOrganisationNumber: FIRM, customerId, kind: 'information', validFrom: '2026-01-01' })));
    assert.deepEqual(tally(answers), { 201: AT_ONCE });
    assert.equal(await count(b, 'SELECT count(*) AS n FROM powers_of_attorney WHERE customer_id = ANY($1)', [customers]), AT_ONCE, 'each granted');
    assert.equal(await count(b, `SELECT count(*) AS n FROM power_of_attorney_changes c JOIN powers_of_attorney p ON p.id = c.power_of_attorney_id WHERE p.customer_id = ANY($1) AND c.change = 'granted'`, [customers]), AT_ONCE, 'each audited');
  },

  'POST /api/powers-of-attorney/:id/revoke': async (b) => {
    const granted = await expectStatus(b, staffCall('POST', '/api/powers-of-attorney', { holderOrganisationNumber: FIRM, customerId: personnummer('19800101', 200), kind: 'information', validFrom: '2026-01-01' }), 201);
    const { id } = json<{ id: string | number }>(granted);
    const { answers } = await b.burst(times(() => staffCall('POST', `/api/powers-of-attorney/${id}/revoke`, { reason: 'ended by the customer' })));
    assert.deepEqual(tally(answers), { 200: 1, '404 RESOURCE_NOT_FOUND': AT_ONCE - 1 });
    assert.equal(await count(b, `SELECT count(*) AS n FROM power_of_attorney_changes WHERE power_of_attorney_id = $1 AND change = 'revoked'`, [id]), 1, 'revoked once');
  },

  'POST /api/organisations/:orgnr/signatories': async (b) => {
    const people = times((i) => personnummer('19750505', 300 + i));
    const { answers } = await b.burst(people.map((personalNumber, i) => staffCall('POST', `/api/organisations/${ORGANISATION}/signatories`, { personalNumber, name: `Signatory ${i}`, validFrom: '2026-01-01' })));
    assert.deepEqual(tally(answers), { 201: AT_ONCE });
    assert.equal(await count(b, 'SELECT count(*) AS n FROM company_signatories WHERE organisation_number = $1 AND personal_number = ANY($2)', [ORGANISATION, people]), AT_ONCE, 'each registered');
  },

  'POST /api/organisations/:orgnr/signatories/:id/revoke': async (b) => {
    const registered = await expectStatus(b, staffCall('POST', `/api/organisations/${ORGANISATION}/signatories`, { personalNumber: personnummer('19750505', 400), name: 'Revoked Once', validFrom: '2026-01-01' }), 201);
    const { id } = json<{ id: string | number }>(registered);
    const { answers } = await b.burst(times(() => staffCall('POST', `/api/organisations/${ORGANISATION}/signatories/${id}/revoke`, { reason: 'left the board' })));
    assert.deepEqual(tally(answers), { 200: 1, '404 RESOURCE_NOT_FOUND': AT_ONCE - 1 });
    assert.equal(await count(b, `SELECT count(*) AS n FROM company_signatory_changes WHERE organisation_number = $1 AND change = 'revoked' AND details->>'id' = $2`, [ORGANISATION, String(id)]), 1, 'revoked once');
  },

  'PUT /api/organisations/:orgnr/signing-rule': async (b) => {
    const organisation = '5560000001';
    const { answers } = await b.burst(times((i) => staffCall('PUT', `/api/organisations/${organisation}/signing-rule`, { requiredSignatures: i + 1 })));
    assert.deepEqual(tally(answers), { 200: AT_ONCE });
    const changes = await rows<{ required: number }>(b, `SELECT (details->>'requiredSignatures')::int AS required FROM company_signatory_changes WHERE organisation_number = $1 AND change = 'rule-set' ORDER BY id`, [organisation]);
    assert.deepEqual(changes.map((change) => change.required).sort((x, y) => x - y), times((i) => i + 1), 'each change audited');
    const rule = await rows<{ required: number }>(b, 'SELECT required_signatures AS required FROM company_signing_rules WHERE organisation_number = $1', [organisation]);
    assert.deepEqual(rule, [{ required: changes.at(-1)!.required }], 'one rule: the last change made');
  },

  'POST /api/applications/:id/approve': async (b) => {
    const applicationId = await applicationUnderReview(b);
    const { answers } = await b.burst(times(() => staffCall('POST', `/api/applications/${applicationId}/approve`, { reason: 'premium checked' })));
    assert.deepEqual(tally(answers), { 200: 1, '404 RESOURCE_NOT_FOUND': AT_ONCE - 1 });
    assert.deepEqual(json(answers.find((answer) => answer.status === 200)!), { applicationId, status: 'issued' });
    assert.equal(await count(b, 'SELECT count(*) AS n FROM insurances WHERE created_by_message = $1', [applicationId]), 1, 'issued once');
    assert.deepEqual(await applicationHistory(b, applicationId), ['received', 'awaiting-signature', 'under-review', 'approved', 'issued']);
  },

  'POST /api/applications/:id/reject': async (b) => {
    const applicationId = await applicationUnderReview(b);
    const { answers } = await b.burst(times(() => staffCall('POST', `/api/applications/${applicationId}/reject`, { reason: 'premium too high' })));
    assert.deepEqual(tally(answers), { 200: 1, '404 RESOURCE_NOT_FOUND': AT_ONCE - 1 });
    assert.deepEqual(await applicationHistory(b, applicationId), ['received', 'awaiting-signature', 'under-review', 'rejected']);
  },
};

const ENGINES: ReadonlyArray<readonly [string, TestGatewayOptions]> = [['the embedded database', { embedded: true }], ['PostgreSQL', {}]];

/** Both gateways are started at once (the embedded one takes longest); each is closed when its rows are done. */
const opening = new Map<string, Promise<Bench>>();
const closing = new Map<string, Promise<void>>();
function close(engine: string): Promise<void> {
  if (!closing.has(engine)) closing.set(engine, opening.get(engine)!.then((bench) => bench.gateway.destroy(), () => undefined));
  return closing.get(engine)!;
}
let bankid: TestBankId;
let smtp: SmtpSink;

beforeAll(async () => {
  bankid = await startTestBankId();
  smtp = await startSmtpSink();
  // The local BankID's test certificates also make demo-employer's SSEK signing certificate.
  const employerSigning = await bankid.certificates.signing('employer-signing');
  const shared = {
    bankid, bankidSettings: await bankid.settings(), smtp, employerSigning,
    clients: await Promise.all(CLIENTS.map(async (id) => ({ id, secretHash: await hashSecret(`${id}-secret`) }))),
  };
  for (const [name, engine] of ENGINES) opening.set(name, openBench(name, engine, shared));
  await Promise.allSettled(opening.values());
});
afterAll(async () => {
  await Promise.all([...opening.keys()].map(close));
  await bankid?.close();
  await smtp?.close();
});

describe.each(ENGINES)('every route that writes, %s, 20 requests at once', (engine) => {
  let bench: Bench;
  let row = '';
  beforeAll(async () => {
    const opened = await opening.get(engine)!;
    bench = { ...opened, burst: (calls) => burst(opened.base, calls, { report: (figures) => process.stdout.write(`# ${engine}, ${row}: ${figures}\n`) }) };
  });
  afterAll(() => close(engine));

  test('every route that writes has a row, and every row is a route the server serves', () => {
    const writing = bench.gateway.http!.servedRoutes
      .filter((route) => route.method !== 'GET' && route.method !== 'HEAD' && !route.url.startsWith('/admin/queues/'))
      .map((route) => `${route.method} ${route.url}`);
    assert.deepEqual([...new Set(writing)].sort(), Object.keys(ROWS).sort(), 'a route that writes needs a row in ROWS');
  });

  test.each(Object.keys(ROWS))('%s', async (route) => {
    row = route;
    await ROWS[route]!(bench);
  });
});

/**
 * The orders the bench's BankID server holds now. The server serves both databases' runs, whose
 * insurance numbers are alike, so a row counts only the orders its own requests made.
 */
function ordersAtBankId(b: Bench): Set<string> {
  return new Set(b.bankid.server.control.orders().map((order) => order.orderRef));
}
