/**
 * The staff console in a real browser: Debian's chromium driven by playwright-core
 * (Playwright cannot fetch its own browsers here; scripts/test-services.sh installs
 * chromium). Sign-in and a wrong password, the overview's numbers against the
 * database, a search by personnummer, a message's raw XML and response, a replay with
 * its reason found in the audit log, a viewer who cannot replay, and the queue
 * dashboard behind the same sign-in with readable labels and no console errors, and
 * the read-only lists (custodian reports, runs, set-aside mail, notices, applications,
 * withdrawals), the documents-per-minute chart and a message's highlighted XML open
 * without console errors.
 * Screenshots of the main pages are kept under <tmp>/depot-gateway-test-output/console
 * (or $DG_TEST_OUTPUT/console) for people to look at.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { FIXED_NOW, startTestGateway, waitFor, type TestGateway } from './support/harness.ts';
import { stockholmDate } from '../src/core/calendar-date.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';
import { markDead } from '../src/ledger/messages/messages.repository.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = join(process.env.DG_TEST_OUTPUT ?? join(tmpdir(), 'depot-gateway-test-output'), 'console');

describe('staff console in a browser', () => {
  let gateway: TestGateway;
  let browser: Browser;
  let base: string;
  const ids: Record<string, string> = {};
  const sql = async <Row>(text: string, params: unknown[] = []) => (await gateway.deps.db.query<Row>(text, params)).rows;

  async function submit(messageId: string, pin: string, salary: string): Promise<string> {
    const answer = await gateway.http!.inject({
      method: 'POST', url: `/api/messages?from=demo-employer&name=${messageId}.xml`,
      headers: { authorization: `Basic ${Buffer.from('olga:operator-password').toString('base64')}`, 'content-type': 'application/xml' },
      payload: salaryAdjustment({ messageId }, [{ pin, date: '2026-12-01', salary }]),
    });
    const id = (answer.json() as { messageId: string }).messageId;
    await waitFor(async () => (await sql<{ status: string }>('SELECT status FROM messages WHERE id = $1', [id]))[0]?.status === 'applied', `${messageId} applied`);
    return id;
  }

  async function signIn(page: Page, username: string, password: string): Promise<void> {
    await page.goto(`${base}/console`);
    await page.fill('input[name=username]', username);
    await page.fill('input[name=password]', password);
    await Promise.all([page.waitForURL(`${base}/console`), page.click('button[type=submit]')]);
  }

  /** A page that fails the test on any console error or uncaught exception. */
  async function watchedPage(): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    return { page, errors };
  }

  beforeAll(async () => {
    gateway = await startTestGateway({
      roles: ['api', 'worker'],
      settings: {
        staff: { users: [{ username: 'olga', password: 'operator-password' }, { username: 'vera', password: 'viewer-password', role: 'viewer' }] },
        workers: { reconcileEveryMs: 60_000, reconcileAfterMs: 60_000 },
      },
    });
    base = `http://127.0.0.1:${(gateway.http!.server.address() as AddressInfo).port}`;
    // An installation that has known its custodians for a month: every daily report of the last 14 days is owed, and listed.
    await gateway.deps.db.query(`UPDATE custodians_first_seen SET first_seen_at = $1`, [new Date(FIXED_NOW.getTime() - 30 * 86_400_000)]);
    ids.anna1 = await submit('BROWSER-1', PERSONS.anna, '610000.00');
    ids.bertil = await submit('BROWSER-2', PERSONS.bertil, '620000.00');
    ids.anna2 = await submit('BROWSER-3', PERSONS.anna, '630000.00');
    ids.dead = await submit('BROWSER-4', PERSONS.david, '640000.00');
    await markDead(gateway.deps.db, ids.dead, 'deliver', 'DELIVERY_FAILED', 'the outbox could not be written');
    await mkdir(SCREENSHOTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await gateway.destroy();
  });

  test('a wrong password stays on the sign-in page; the right one opens the overview', async () => {
    const { page, errors } = await watchedPage();
    await page.goto(`${base}/console/messages`);
    assert.match(page.url(), /\/console\/sign-in\?next=%2Fconsole%2Fmessages$/);
    await page.fill('input[name=username]', 'olga');
    await page.fill('input[name=password]', 'wrong-password');
    await page.click('button[type=submit]');
    assert.equal(await page.textContent('[role=alert]'), 'Unknown user or wrong password.');
    await page.screenshot({ path: join(SCREENSHOTS, 'sign-in.png') });
    // The refusal is a 401, which the browser notes in its console; nothing else may be there.
    assert.deepEqual(errors.splice(0), ['Failed to load resource: the server responded with a status of 401 (Unauthorized)']);
    await page.fill('input[name=username]', 'olga');
    await page.fill('input[name=password]', 'operator-password');
    await Promise.all([page.waitForURL(`${base}/console/messages`), page.click('button[type=submit]')]);
    assert.equal(await page.textContent('h1'), 'Messages');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("the overview's numbers are the database's", async () => {
    const { page, errors } = await watchedPage();
    await signIn(page, 'vera', 'viewer-password');
    await page.screenshot({ path: join(SCREENSHOTS, 'overview.png'), fullPage: true });
    const dead = await sql<{ n: string }>(`SELECT count(*) AS n FROM messages WHERE status = 'dead'`);
    assert.equal(await page.textContent('#dead'), dead[0]!.n);
    const shown = await page.$$eval('#today tr', (rows) => rows.slice(1).flatMap((row) => {
      const cells = [...row.querySelectorAll('td')].map((cell) => cell.textContent ?? '');
      const statuses = [...row.querySelectorAll('td[data-status]')].map((cell) => [cell.getAttribute('data-status'), Number(cell.textContent)] as const);
      return statuses.filter(([, count]) => count > 0).map(([status, count]) => `${cells[0]}|${cells[1]}|${status}|${count}`);
    }));
    // "Today" is the gateway's clock's day: the test clock's.
    const counted = await sql<{ counterparty_id: string; message_type: string; status: string; n: string }>(
      `SELECT counterparty_id, message_type, status, count(*) AS n FROM messages
        WHERE (received_at AT TIME ZONE 'Europe/Stockholm')::date = $1::date GROUP BY 1, 2, 3`,
      [stockholmDate(FIXED_NOW)],
    );
    assert.ok(counted.length > 0);
    assert.deepEqual(new Set(shown), new Set(counted.map((row) => `${row.counterparty_id}|${row.message_type}|${row.status}|${row.n}`)));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a search by personnummer finds exactly the documents that name the person; one opens with its raw XML and response', async () => {
    const { page, errors } = await watchedPage();
    await signIn(page, 'vera', 'viewer-password');
    await page.goto(`${base}/console/messages`);
    await page.fill('input[name=pnr]', `${PERSONS.anna.slice(0, 8)}-${PERSONS.anna.slice(8)}`);
    await page.click('form.filters button[type=submit]');
    await page.waitForSelector('#messages');
    await page.screenshot({ path: join(SCREENSHOTS, 'messages.png'), fullPage: true });
    const found = await page.$$eval('#messages tr[data-message-id]', (rows) => rows.map((row) => row.getAttribute('data-message-id')));
    const expected = await sql<{ message_id: string }>(`SELECT DISTINCT message_id FROM document_keys WHERE kind = 'personnummer' AND value = $1`, [PERSONS.anna]);
    assert.deepEqual(new Set(found), new Set(expected.map((row) => row.message_id)));
    assert.ok(found.includes(ids.anna1!) && found.includes(ids.anna2!) && !found.includes(ids.bertil!));
    await Promise.all([page.waitForURL(`${base}/console/messages/${ids.anna1}`), page.click(`tr[data-message-id="${ids.anna1}"] a`)]);
    await page.screenshot({ path: join(SCREENSHOTS, 'message.png'), fullPage: true });
    const raw = await page.textContent('#raw');
    assert.match(raw!, /<SalaryAdjustment xmlns="urn:se:depot-gateway:v1">/);
    assert.match(raw!, /<MessageId>BROWSER-1<\/MessageId>/);
    assert.match((await page.textContent('#response'))!, /<SalaryAdjustmentResponse[\s\S]*<Status>Accepted<\/Status>/);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-raw')]);
    assert.equal(download.suggestedFilename(), 'BROWSER-1.xml');
    assert.equal(await page.$('#replay'), null, 'a viewer is offered no replay');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('an operator replays a dead message with a reason and finds it in the audit log; a viewer cannot', async () => {
    const viewer = await watchedPage();
    await signIn(viewer.page, 'vera', 'viewer-password');
    await viewer.page.goto(`${base}/console/messages/${ids.dead}`);
    assert.equal(await viewer.page.textContent('#status'), 'dead (in deliver)');
    assert.equal(await viewer.page.$('#replay'), null);
    // The page offers no form; the viewer's own session posting one anyway is refused.
    const csrf = await viewer.page.getAttribute('input[name=_csrf]', 'value');
    const refused = (await viewer.page.request.post(`${base}/console/messages/${ids.dead}/replay`, { form: { _csrf: csrf!, reason: 'try' } })).status();
    assert.equal(refused, 403);
    await viewer.page.close();

    const { page, errors } = await watchedPage();
    await signIn(page, 'olga', 'operator-password');
    await page.goto(`${base}/console/messages/${ids.dead}`);
    await page.fill('#replay textarea[name=reason]', 'outbox restored (INC-7)');
    await Promise.all([page.waitForURL(`${base}/console/messages/${ids.dead}?replayed=1`), page.click('#replay button[type=submit]')]);
    assert.match((await page.textContent('[role=status]'))!, /Replayed/);
    await waitFor(async () => (await sql<{ status: string }>('SELECT status FROM messages WHERE id = $1', [ids.dead]))[0]?.status === 'applied', 'delivered after the replay');
    await page.goto(`${base}/console/audit`);
    await page.screenshot({ path: join(SCREENSHOTS, 'audit.png'), fullPage: true });
    const entries = await page.$$eval('#audit tr[data-action=replay]', (rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)));
    assert.equal(entries.length, 1);
    assert.deepEqual([entries[0]![2], entries[0]![4], entries[0]![5], entries[0]![6]], ['olga', ids.dead, 'outbox restored (INC-7)', 'done']);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the queue dashboard opens with the console session, its labels readable and no console errors', async () => {
    const { page, errors } = await watchedPage();
    await signIn(page, 'vera', 'viewer-password');
    await page.goto(`${base}/admin/queues`);
    await page.waitForSelector('text=validate');
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: join(SCREENSHOTS, 'queues.png'), fullPage: true });
    const text = (await page.textContent('body')) ?? '';
    assert.doesNotMatch(text, /\b[A-Z]+(?:\.[A-Z_]+)+\b/, 'no untranslated key such as QUEUE.STATUS.LATEST');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the lists, the chart and the highlighted XML open without console errors', async () => {
    const { page, errors } = await watchedPage();
    await signIn(page, 'vera', 'viewer-password');
    const bars = await page.$$eval('#per-minute rect.bar', (rects) => rects.reduce((sum, rect) => sum + Number(rect.getAttribute('data-count')), 0));
    assert.equal(bars, Number(await page.getAttribute('#per-minute', 'data-total')));
    assert.ok(bars >= 4, 'the documents of this test are on the chart');
    const box = await page.$eval('#per-minute', (svg) => svg.getBoundingClientRect().height);
    assert.ok(box > 50, 'the chart is drawn');
    for (const [path, heading, shot] of [
      ['/console/custodian-reports', 'Custodian reports', 'custodian-reports'], ['/console/runs', 'Debit and payout runs', 'runs'],
      ['/console/mail-set-aside', 'Set-aside mail', 'mail-set-aside'], ['/console/payout-notices', 'Payout notices', 'payout-notices'],
      ['/console/application-notices', 'Application notices', 'application-notices'], ['/console/applications', 'Applications', 'applications'],
      ['/console/withdrawal-requests', 'Withdrawal requests', 'withdrawal-requests'],
    ] as const) {
      await Promise.all([page.waitForURL(`${base}${path}`), page.click(`header nav a[href="${path}"]`)]);
      assert.equal(await page.textContent('h1'), heading);
      if (shot === 'custodian-reports') assert.ok((await page.$$('#daily-reports tr')).length > 1, 'the daily reports of the last 14 days are listed');
      await page.screenshot({ path: join(SCREENSHOTS, `${shot}.png`), fullPage: true });
    }
    await page.goto(`${base}/console/messages/${ids.bertil}`);
    const tag = await page.$eval('#raw .xml-tag', (element) => getComputedStyle(element).fontWeight);
    assert.equal(tag, '600', 'the stylesheet highlights the tags');
    assert.ok((await page.$$('table.ledger[data-table=salaries] tr')).length > 1, 'the salary the document set is listed');
    await page.screenshot({ path: join(SCREENSHOTS, 'message-ledger.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('at phone width the page never scrolls sideways: wide tables and the chart scroll in their own box, and a bar stays 3 px wide', async () => {
    const { page, errors } = await watchedPage();
    await page.setViewportSize({ width: 375, height: 740 });
    await signIn(page, 'olga', 'operator-password');
    const bar = await page.$eval('#per-minute rect.bar', (rect) => rect.getBoundingClientRect().width);
    assert.ok(bar >= 2.9, `a bar is drawn ${bar} px wide`);
    // The chart's box starts at its right end: the latest minutes are in view.
    const chart = await page.$eval('.chart-scroll', (box) => ({ box: box.getBoundingClientRect(), svg: box.querySelector('svg')!.getBoundingClientRect() }));
    assert.ok(chart.svg.width > chart.box.width, 'the chart is wider than a phone');
    assert.ok(Math.abs(chart.svg.right - chart.box.right) < 2, `the chart shows its right end (${chart.svg.right} against ${chart.box.right})`);
    await page.screenshot({ path: join(SCREENSHOTS, 'phone-overview.png'), fullPage: true });
    for (const path of ['/console', '/console/messages', `/console/messages/${ids.bertil}`, '/console/custodian-reports', '/console/channels', '/console/audit']) {
      await page.goto(`${base}${path}`);
      const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: window.innerWidth }));
      // What sticks out of the screen outside a scrolling box: named in the failure.
      const overflowing = await page.evaluate(() => [...document.querySelectorAll('body *')]
        .filter((element) => (element.tagName === 'TABLE' || !element.closest('table, .chart-scroll')) && element.getBoundingClientRect().right > window.innerWidth + 1)
        .slice(0, 5).map((element) => `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}`).join(', '));
      assert.ok(widths.page <= widths.screen, `${path} is ${widths.page} px wide on a ${widths.screen} px screen (${overflowing})`);
      for (const table of await page.$$('main table')) {
        const box = await table.boundingBox();
        assert.ok(box && box.x + box.width <= widths.screen + 0.5, `a table of ${path} ends within the screen`);
      }
    }
    await page.screenshot({ path: join(SCREENSHOTS, 'phone-custodian-reports.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
