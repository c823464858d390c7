/**
 * The insurer's signing page over HTTP, on the embedded database and on PostgreSQL, with
 * the BankID adapter speaking mutual TLS to the local BankID server: signing links made
 * through the REST API (POST /SignCase/{id}/Link, shown in GET /SignCase/{id}, revoked),
 * the page a link opens, and every way a link does not open it — a wrong token, none,
 * another case's, an unknown case, an expired or revoked link, a complete case — answered
 * with the same 404, byte for byte; starting an order from the page and collecting it
 * (JSON for the script, the page itself without one), a signature by someone else not
 * counted, a refusal shown, a form from another site refused, and a two-signatory case
 * signed to the end on the page alone.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { startTestGateway, waitFor, type TestGateway, type TestGatewayOptions } from './support/harness.ts';
import { advisorFirmApi, startTestBankId, type TestBankId } from './support/bankid.ts';
import { INSURED, POLICYHOLDER, STRANGER, asFirm, prepareWithdrawableInsurance, requestWithdrawal, signingLink, type TwoSignatoryCase } from './support/signing-case.ts';
import { signInToConsole } from './support/console-session.ts';
import { startSmtpSink, type SmtpSink } from './support/smtp-sink.ts';
import { animatedQrData } from '../src/bankid/qr-code.ts';
import { qrOutline } from '../src/http/signing-page/qr-svg.ts';

const START = Date.parse('2026-11-27T09:00:00Z');
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

const ENGINES: ReadonlyArray<readonly [string, TestGatewayOptions]> = [['the embedded database', { embedded: true }], ['PostgreSQL', {}]];

describe.each(ENGINES)('the signing page, %s', (_engine, engine) => {
  let gateway: TestGateway;
  let testBankId: TestBankId;
  let smtp: SmtpSink;
  let insuranceNumber = '';
  let signCase: TwoSignatoryCase;
  let other: TwoSignatoryCase;
  /** The gateway's clock runs from START; the tests move it on. */
  let offsetMs = 0;
  const began = Date.now();
  const clock = () => new Date(START + (Date.now() - began) + offsetMs);

  beforeAll(async () => {
    testBankId = await startTestBankId();
    smtp = await startSmtpSink();
    gateway = await startTestGateway({
      ...engine, roles: ['api'], clock,
      settings: {
        api: await advisorFirmApi(), bankid: await testBankId.settings(), signingPage: { linkLifetimeHours: 48 },
        mail: { smtp: { host: smtp.host, port: smtp.port, from: 'signing@insurer.example' } },
        staff: { users: [{ username: 'staff', password: 'test-password' }, { username: 'vera', password: 'viewer-password', role: 'viewer' }] },
      },
    });
    insuranceNumber = await prepareWithdrawableInsurance(gateway, testBankId.server, '2026-11-26');
    signCase = await requestWithdrawal(gateway, insuranceNumber);
    other = await requestWithdrawal(gateway, insuranceNumber, '1000.00');
  }, 120_000);
  afterAll(async () => {
    await gateway?.destroy();
    await testBankId?.close();
    await smtp?.close();
  });

  const get = (url: string, headers: Record<string, string> = {}) => gateway.http!.inject({ method: 'GET', url, headers });
  const post = (url: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
    gateway.http!.inject({ method: 'POST', url, headers: { ...FORM, ...headers }, payload: new URLSearchParams(form).toString() });
  const collectJson = async (id: string, token: string) => {
    const answer = await post(`/sign/${id}/collect`, { t: token, lang: 'en' }, { accept: 'application/json' });
    assert.equal(answer.statusCode, 200, answer.body);
    return answer.json() as { status: string; message: string; qr?: { viewBox: string; path: string } };
  };
  const rows = async <T>(sql: string, params: unknown[]) => (await gateway.deps.db.query<T>(sql, params)).rows;
  const signatories = async (id: string) => ((await asFirm(gateway, { method: 'GET', url: `/SignCase/${id}` })).json() as {
    complete: boolean; signatories: { role: string; signed: boolean; linkExpiresAt: string | null }[];
  });
  const pendingOrder = async (id: string, role: string) =>
    (await rows<{ order_ref: string; qr_start_token: string; qr_start_secret: string; started_at: Date }>(
      `SELECT order_ref, qr_start_token, qr_start_secret, started_at FROM sign_orders WHERE sign_case_id = $1 AND role = $2 AND status = 'pending'`, [id, role]))[0];
  /** The 404 every link that does not open the page gets: status, type and body. */
  const notFound = (answer: LightMyRequestResponse) => `${answer.statusCode} ${String(answer.headers['content-type'])} ${answer.body}`;

  test('a link per signatory: made by the firm that may act, shown by its expiry in the sign case, never stored as given', async () => {
    const link = await signingLink(gateway, signCase.signCaseId, 'policyholder');
    assert.match(link.url, new RegExp(`^http://127\\.0\\.0\\.1:\\d+/sign/${signCase.signCaseId}\\?t=[A-Za-z0-9_-]{43}$`));
    assert.equal(Date.parse(link.expiresAt) - clock().getTime() <= 48 * 3_600_000 && Date.parse(link.expiresAt) - clock().getTime() > 47.9 * 3_600_000, true, link.expiresAt);
    const view = await signatories(signCase.signCaseId);
    assert.deepEqual(view.signatories.map((s) => [s.role, s.linkExpiresAt]), [['policyholder', link.expiresAt], ['insured', null]]);
    const stored = await rows<{ token_hash: string; created_by: string }>('SELECT token_hash, created_by FROM sign_links WHERE sign_case_id = $1', [signCase.signCaseId]);
    assert.equal(stored.length, 1);
    assert.match(stored[0]!.token_hash, /^[0-9a-f]{64}$/);
    assert.notEqual(stored[0]!.token_hash, link.token);
    assert.equal(stored[0]!.created_by, 'client:firm');
    const nobody = await asFirm(gateway, { method: 'POST', url: `/SignCase/${signCase.signCaseId}/Link`, payload: { role: 'company-signatory' } });
    assert.equal(nobody.statusCode, 400, nobody.body);
  });

  test('the page shows what is signed, who signs and how, in Swedish or English, with its protective headers', async () => {
    const { path } = await signingLink(gateway, signCase.signCaseId, 'insured');
    const swedish = await get(path);
    assert.equal(swedish.statusCode, 200, swedish.body);
    assert.match(swedish.body, /<html lang="sv">/);
    assert.match(swedish.body, /<h4>Uttag från depåförsäkring<\/h4>/);
    assert.match(swedish.body, new RegExp(`<strong>12 500,00 kr</strong> från försäkring ${insuranceNumber}`));
    assert.match(swedish.body, /<li data-role="insured" data-signed="no" data-own="yes">\s*<strong>Försäkrad \(du\)<\/strong> 19920303-\*\*\*\*/);
    assert.match(swedish.body, /0 av 2 underskrifter klara/);
    assert.match(swedish.body, /<button type="submit" class="primary">Öppna BankID på den här enheten<\/button>/);
    assert.doesNotMatch(swedish.body, /199203033452|198506152381/, 'no full personnummer on the page');
    assert.equal(swedish.headers['cache-control'], 'no-store');
    assert.equal(swedish.headers['x-frame-options'], 'DENY');
    assert.equal(swedish.headers['referrer-policy'], 'no-referrer');
    assert.match(String(swedish.headers['content-security-policy']), /default-src 'none'; script-src 'self'; .*frame-ancestors 'none'/);
    assert.doesNotMatch(swedish.body, /<script>|style=/, 'no inline script or style');
    const english = await get(path, { 'accept-language': 'en-GB,en;q=0.9,sv;q=0.5' });
    assert.match(english.body, /<html lang="en">/);
    assert.match(english.body, /Insured \(you\)/);
    assert.match((await get(`${path}&lang=en`)).body, /Open BankID on this device/);
    assert.match((await get(`${path}&lang=sv`, { 'accept-language': 'en' })).body, /Öppna BankID på den här enheten/);
  });

  test('a wrong, missing or other case\'s token, an unknown case and a revoked link: the same 404, byte for byte', async () => {
    const mine = await signingLink(gateway, signCase.signCaseId, 'policyholder');
    const theirs = await signingLink(gateway, other.signCaseId, 'policyholder');
    const reference = notFound(await get(`/sign/SC-01JD8Z3Q4X5Y6Z7A8B9C0D1E2F?t=${mine.token}`));
    assert.match(reference, /^404 text\/html; charset=utf-8 <!doctype html>/);
    const answers = {
      'a wrong token': await get(`/sign/${signCase.signCaseId}?t=${mine.token.slice(0, -2)}xy`),
      'no token': await get(`/sign/${signCase.signCaseId}`),
      'an empty token': await get(`/sign/${signCase.signCaseId}?t=`),
      "another case's token": await get(`/sign/${signCase.signCaseId}?t=${theirs.token}`),
      'the token on the other case': await get(`/sign/${other.signCaseId}?t=${mine.token}`),
      'starting with a wrong token': await post(`/sign/${signCase.signCaseId}/start`, { t: theirs.token, device: 'other' }),
      'collecting with a wrong token': await post(`/sign/${signCase.signCaseId}/collect`, { t: 'x' }, { accept: 'application/json' }),
    };
    for (const [what, answer] of Object.entries(answers)) assert.equal(notFound(answer), reference, what);
    assert.equal((await get(theirs.path)).statusCode, 200, 'the other link opens its own case');

    const revoked = await asFirm(gateway, { method: 'POST', url: `/SignCase/${other.signCaseId}/Link/revoke`, payload: { role: 'policyholder' } });
    assert.deepEqual(revoked.json(), { role: 'policyholder', personalNumber: POLICYHOLDER.personalNumber, revoked: 1 });
    assert.equal(notFound(await get(theirs.path)), reference, 'a revoked link');
    assert.equal((await signatories(other.signCaseId)).signatories[0]!.linkExpiresAt, null);
    assert.equal((await rows('SELECT 1 FROM sign_orders WHERE sign_case_id = $1', [signCase.signCaseId])).length, 0, 'nothing was started');
  });

  test('an expired link: the same 404', async () => {
    const link = await signingLink(gateway, other.signCaseId, 'insured');
    assert.equal((await get(link.path)).statusCode, 200);
    const reference = notFound(await get(`/sign/${other.signCaseId}?t=wrong`));
    offsetMs = 48 * 3_600_000 + 1_000;
    try {
      assert.equal(notFound(await get(link.path)), reference);
      assert.equal((await signatories(other.signCaseId)).signatories[1]!.linkExpiresAt, null);
    } finally {
      offsetMs = 0;
    }
  });

  test('a form from another site is refused and starts nothing', async () => {
    const link = await signingLink(gateway, other.signCaseId, 'insured');
    const crossSite = await post(`/sign/${other.signCaseId}/start`, { t: link.token, device: 'other' }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
    assert.equal(crossSite.statusCode, 403);
    const otherOrigin = await post(`/sign/${other.signCaseId}/start`, { t: link.token, device: 'other' }, { origin: 'https://evil.example' });
    assert.equal(otherOrigin.statusCode, 403);
    assert.equal((await rows('SELECT 1 FROM sign_orders WHERE sign_case_id = $1', [other.signCaseId])).length, 0);
  });

  test("started on the page: the order's QR code each second, its step; signed by someone else it does not count", async () => {
    const link = await signingLink(gateway, signCase.signCaseId, 'insured');
    const started = await post(`/sign/${signCase.signCaseId}/start`, { t: link.token, lang: 'en', device: 'other' }, { origin: 'http://localhost:80', host: 'localhost:80' });
    assert.equal(started.statusCode, 303, started.body);
    assert.equal(started.headers.location, `/sign/${signCase.signCaseId}?t=${link.token}&lang=en&device=other`);
    const order = (await pendingOrder(signCase.signCaseId, 'insured'))!;
    assert.ok(order, 'an order for the insured, the link\'s signatory');
    const sent = testBankId.server.control.order(order.order_ref)!.request;
    assert.match(Buffer.from(sent.userVisibleData, 'base64').toString('utf8'), /12 500,00 kr/);

    const page = await get(started.headers.location as string);
    assert.match(page.body, /<svg id="qr-code" role="img" aria-label="QR code to scan with the BankID app"/);
    assert.match(page.body, /<noscript><meta http-equiv="refresh" content="2; url=/);
    assert.match(page.body, /<script src="\/sign\/page\.js" defer><\/script>/);
    const shown = /<path id="qr-path" d="([^"]+)"/.exec(page.body)![1]!;
    const expected = (second: number) => qrOutline(animatedQrData(order.qr_start_token, order.qr_start_secret, second)).path;
    /** The seconds the order may be at now (a second boundary may pass between the answer and this). */
    const nearNow = () => {
      const seconds = Math.floor((clock().getTime() - new Date(order.started_at).getTime()) / 1000);
      return [seconds - 1, seconds].filter((second) => second >= 0);
    };
    assert.ok(nearNow().some((second) => expected(second) === shown), 'the QR code of the order for this second');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const next = await collectJson(signCase.signCaseId, link.token);
    assert.equal(next.status, 'pending');
    assert.equal(next.message, 'Open the BankID app and scan the QR code, or start the app on this device.');
    assert.notEqual(next.qr!.path, shown, 'a second later, another code');
    assert.ok(nearNow().some((second) => expected(second) === next.qr!.path));

    testBankId.server.control.signThrough(order.order_ref, STRANGER);
    const ended = await waitFor(async () => {
      const answer = await collectJson(signCase.signCaseId, link.token);
      return answer.status !== 'pending' && answer;
    }, 'BankID collected again', 5_000);
    assert.deepEqual(ended, { status: 'ended', message: "The signing was done with someone else's BankID and does not count. You must sign with your own BankID." });
    assert.deepEqual(await rows('SELECT status, reason FROM sign_orders WHERE order_ref = $1', [order.order_ref]), [{ status: 'not-counted', reason: 'signedByAnotherPerson' }]);
    assert.equal((await signatories(signCase.signCaseId)).signatories[1]!.signed, false);
    const after = await get(link.path);
    assert.match(after.body, /<div id="outcome" class="notice error" role="alert"><p>Signeringen gjordes med någon annans BankID och räknas inte/);
    assert.match(after.body, /id="start-other"/, 'offered to try again');
  });

  test('a refusal in the app is shown in words; trying again on the page works', async () => {
    const link = await signingLink(gateway, signCase.signCaseId, 'insured');
    assert.equal((await post(`/sign/${signCase.signCaseId}/start`, { t: link.token, device: 'this' })).statusCode, 303);
    const order = (await pendingOrder(signCase.signCaseId, 'insured'))!;
    const page = await get(`${link.path}&device=this`);
    assert.match(page.body, /<a id="open-app" class="button primary" href="bankid:\/\/\/\?autostarttoken=[0-9a-f-]+&amp;redirect=null">Öppna BankID-appen<\/a>/);
    testBankId.server.control.cancelInApp(order.order_ref);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const checked = await post(`/sign/${signCase.signCaseId}/collect`, { t: link.token, device: 'this' });
    assert.equal(checked.statusCode, 200);
    assert.match(checked.body, /<div id="outcome" class="notice error" role="alert"><p>Du avbröt signeringen\.<\/p><\/div>/);
    assert.deepEqual(await rows('SELECT status, hint_code FROM sign_orders WHERE order_ref = $1', [order.order_ref]), [{ status: 'failed', hint_code: 'userCancel' }]);
  });

  test('staff mail a signatory the link from the console: a link of its own in the mail, audited; refused to viewers and for a bad address', async () => {
    const session = await signInToConsole(gateway.http!, 'staff', 'test-password');
    const casePage = await get(`/console/sign-cases/${other.signCaseId}`, { cookie: session.cookie });
    assert.equal(casePage.statusCode, 200);
    assert.match(casePage.body, /<form method="post" action="\/console\/sign-cases\/[^"]+\/mail-link" class="mail-link">/);
    const mail = (fields: Record<string, string>, who = session) => post(`/console/sign-cases/${other.signCaseId}/mail-link`, { _csrf: who.csrf, ...fields }, { cookie: who.cookie });
    const before = smtp.mails.length;
    const sent = await mail({ role: 'insured', personalNumber: INSURED.personalNumber, address: 'ebbe@example.se' });
    assert.equal(sent.statusCode, 303, sent.body);
    assert.equal(smtp.mails.length, before + 1);
    const text = smtp.mails.at(-1)!.parsed.text!;
    assert.deepEqual(smtp.mails.at(-1)!.envelopeTo, ['ebbe@example.se']);
    const url = /(http:\/\/\S+\/sign\/\S+)/.exec(text)![1]!;
    assert.match(text, /Du ombeds signera med BankID[\s\S]*You are asked to sign with BankID/);
    const opened = await get(new URL(url).pathname + new URL(url).search);
    assert.equal(opened.statusCode, 200);
    assert.match(opened.body, /data-role="insured" data-signed="no" data-own="yes"/);
    const links = await rows<{ created_by: string }>('SELECT created_by FROM sign_links WHERE sign_case_id = $1 ORDER BY created_at DESC LIMIT 1', [other.signCaseId]);
    assert.equal(links[0]!.created_by, 'staff:staff');

    assert.equal((await mail({ role: 'insured', personalNumber: INSURED.personalNumber, address: 'not an address' })).statusCode, 400);
    const viewer = await signInToConsole(gateway.http!, 'vera', 'viewer-password');
    assert.equal((await mail({ role: 'insured', personalNumber: INSURED.personalNumber, address: 'x@example.se' }, viewer)).statusCode, 403);
    assert.equal((await mail({ role: 'insured', personalNumber: INSURED.personalNumber, address: 'x@example.se', _csrf: 'forged' })).statusCode, 403, 'without the session\'s CSRF token');
    assert.equal(smtp.mails.length, before + 1, 'nothing more was mailed');
    const audit = await rows<{ username: string; reason: string; outcome: string }>(
      `SELECT username, reason, outcome FROM staff_audit WHERE action = 'mail-sign-link' AND subject = $1 ORDER BY id`, [other.signCaseId]);
    assert.deepEqual(audit.map((entry) => [entry.username, entry.reason, entry.outcome]), [
      ['staff', 'insured to ebbe@example.se', 'done'], ['staff', 'insured to not an address', 'refused: "not an address" is not a mail address.'],
    ]);
    assert.ok(!audit.some((entry) => entry.reason.includes(new URL(url).searchParams.get('t')!)), 'the token is in the mail only');
  });

  test('both signatories sign on the page: the request is signed, and the links then open nothing', async () => {
    const links = { policyholder: await signingLink(gateway, signCase.signCaseId, 'policyholder'), insured: await signingLink(gateway, signCase.signCaseId, 'insured') };
    for (const [role, person] of [['policyholder', POLICYHOLDER], ['insured', INSURED]] as const) {
      const link = links[role];
      assert.equal((await post(`/sign/${signCase.signCaseId}/start`, { t: link.token, device: 'other' })).statusCode, 303);
      const order = (await pendingOrder(signCase.signCaseId, role))!;
      testBankId.server.control.signThrough(order.order_ref, person);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      if (role === 'policyholder') {
        // As the page's script asks: the outcome, the case's count and the signatory's own line, to be shown in place.
        const done = await post(`/sign/${signCase.signCaseId}/collect`, { t: link.token, lang: 'en' }, { accept: 'application/json' });
        assert.equal(done.statusCode, 200, done.body);
        const answer = done.json() as { status: string; message: string; caseStatus: string; ownStatus: string };
        assert.deepEqual({ ...answer, ownStatus: answer.ownStatus.replace(/\d.*$/, '<when>') }, {
          status: 'signed', message: 'You have signed. Thank you! There is nothing more for you to do.',
          caseStatus: '1 of 2 signatures done. We are waiting for one more signature.', ownStatus: 'Signed <when>',
        });
        continue;
      }
      const done = await post(`/sign/${signCase.signCaseId}/collect`, { t: link.token });
      assert.equal(done.statusCode, 200);
      assert.match(done.body, /<p id="no-signing" class="notice done" role="status">Du har signerat\. Tack!/);
      assert.match(done.body, /Alla har signerat\. Du behöver inte göra något mer\./);
    }
    const view = await signatories(signCase.signCaseId);
    assert.equal(view.complete, true);
    assert.deepEqual(view.signatories.map((s) => s.linkExpiresAt), [null, null]);
    const history = (await asFirm(gateway, { method: 'GET', url: `/Insurance/withdrawalrequest/${signCase.requestId}` })).json() as { status: string; history: { event: string; by: string; reason: string | null }[] };
    assert.equal(history.status, 'signed');
    assert.deepEqual(history.history.map((h) => [h.event, h.by, h.reason]), [
      ['requested', 'client:firm', null], ['signed', `bankid:${POLICYHOLDER.personalNumber}`, 'policyholder'], ['signed', `bankid:${INSURED.personalNumber}`, 'insured'],
    ]);
    const reference = notFound(await get(`/sign/${signCase.signCaseId}?t=wrong`));
    assert.equal(notFound(await get(links.policyholder.path)), reference, 'a complete case');
    assert.equal(notFound(await get(links.insured.path)), reference);
    const again = await asFirm(gateway, { method: 'POST', url: `/SignCase/${signCase.signCaseId}/Link`, payload: { role: 'insured' } });
    assert.equal(again.json().code, 'SIGN_CASE_CLOSED');
  });
});
