/**
 * The insurer's signing page in a real browser (Debian's chromium driven by
 * playwright-core, as the console's test): a withdrawal's two signatories each open
 * their link and sign on the page, the local BankID server's control playing the person
 * in the BankID app — the QR code changing from second to second as the page's script
 * polls, a signature by someone else shown as not counting, a refusal shown, then both
 * signed; an insurance application signed on the page by its two signatories and then
 * issued; an expired link answers 404. Every control is reached with the keyboard and
 * has a name, and the colours' contrast is measured. Screenshots at desktop and phone
 * width are kept under <tmp>/depot-gateway-test-output/signing-page (or
 * $DG_TEST_OUTPUT/signing-page), showing the text signed, the QR code and the outcomes.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestGateway, waitFor, type TestGateway } from './support/harness.ts';
import { advisorFirmApi, startTestBankId, type TestBankId } from './support/bankid.ts';
import { INSURED, POLICYHOLDER, STRANGER, asFirm, prepareWithdrawableInsurance, requestWithdrawal, signingLink, submitApplication, type TwoSignatoryCase } from './support/signing-case.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = join(process.env.DG_TEST_OUTPUT ?? join(tmpdir(), 'depot-gateway-test-output'), 'signing-page');
const START = Date.parse('2026-11-27T09:00:00Z');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

describe('the signing page in a browser', () => {
  let gateway: TestGateway;
  let testBankId: TestBankId;
  let browser: Browser;
  let signCase: TwoSignatoryCase;
  let other: TwoSignatoryCase;
  let offsetMs = 0;
  const began = Date.now();
  const clock = () => new Date(START + (Date.now() - began) + offsetMs);

  beforeAll(async () => {
    testBankId = await startTestBankId();
    gateway = await startTestGateway({ roles: ['api'], clock, settings: { api: await advisorFirmApi(), bankid: await testBankId.settings() } });
    const insurance = await prepareWithdrawableInsurance(gateway, testBankId.server, '2026-11-26');
    signCase = await requestWithdrawal(gateway, insurance);
    other = await requestWithdrawal(gateway, insurance, '1000.00');
    await mkdir(SCREENSHOTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await gateway?.destroy();
    await testBankId?.close();
  });

  /** A page of the size asked for that fails the test on any console error or uncaught exception. */
  async function watchedPage(viewport: { width: number; height: number }, locale = 'sv-SE'): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage({ viewport, locale });
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    return { page, errors };
  }
  const pendingOrderRef = async (role: string, signCaseId = signCase.signCaseId) => waitFor(async () => (await gateway.deps.db.query<{ order_ref: string }>(
    `SELECT order_ref FROM sign_orders WHERE sign_case_id = $1 AND role = $2 AND status = 'pending'`, [signCaseId, role])).rows[0]?.order_ref, `a pending order of the ${role}`);
  const qrPath = (page: Page) => page.getAttribute('#qr-path', 'd');

  test('the policyholder: every control by keyboard and named, the QR code changing each second, someone else\'s signature not counted, then signed', async () => {
    const { page, errors } = await watchedPage(DESKTOP);
    const link = await signingLink(gateway, signCase.signCaseId, 'policyholder');
    await page.goto(link.url);
    assert.equal(await page.textContent('h1'), 'Signera med BankID');
    assert.match((await page.textContent('#visible-text'))!, /Uttag från depåförsäkring[\s\S]*12 500,00 kr från försäkring/);
    await page.screenshot({ path: join(SCREENSHOTS, 'desktop-start.png'), fullPage: true });

    // The keyboard reaches every control, in reading order, each with a name.
    const reached: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      await page.keyboard.press('Tab');
      reached.push(await page.evaluate(() => `${document.activeElement?.tagName.toLowerCase()}: ${document.activeElement?.textContent?.trim()}`));
    }
    assert.deepEqual(reached, ['a: In English', 'button: Öppna BankID på den här enheten', 'button: BankID på en annan enhet']);
    await page.keyboard.press('Enter'); // BankID on another device, from the keyboard
    await page.waitForSelector('#qr-code');
    assert.equal(await page.getAttribute('#qr-code', 'aria-label'), 'QR-kod att skanna med BankID-appen');
    assert.equal(await page.textContent('#signing-status'), 'Starta BankID-appen och skanna QR-koden, eller öppna appen på den här enheten.');
    await page.screenshot({ path: join(SCREENSHOTS, 'desktop-qr.png'), fullPage: true });
    const first = await qrPath(page);
    const seen = new Set([first]);
    for (let i = 0; i < 3; i += 1) {
      await page.waitForTimeout(1_000);
      seen.add(await qrPath(page));
    }
    assert.ok(seen.size >= 3, `the QR code changes from second to second (${seen.size} codes in 3 s)`);
    await checkContrast(page);

    testBankId.server.control.signThrough(await pendingOrderRef('policyholder'), STRANGER);
    await page.waitForSelector('#outcome', { timeout: 10_000 });
    assert.equal(await page.textContent('#outcome'), 'Signeringen gjordes med någon annans BankID och räknas inte. Du måste signera med ditt eget BankID.');
    await page.screenshot({ path: join(SCREENSHOTS, 'desktop-not-counted.png'), fullPage: true });
    assert.equal(await page.getAttribute('#signatories li[data-role=policyholder]', 'data-signed'), 'no');

    await page.click('#start-other button');
    await page.waitForSelector('#qr-code');
    testBankId.server.control.signThrough(await pendingOrderRef('policyholder'), POLICYHOLDER);
    await page.waitForFunction(() => document.getElementById('signing-status')?.textContent?.startsWith('Du har signerat'), undefined, { timeout: 10_000 });
    assert.equal(await page.isHidden('#qr-code'), true, 'the code is gone once signed');
    await page.reload();
    assert.equal(await page.textContent('#no-signing'), 'Du har signerat. Tack! Du behöver inte göra något mer.');
    assert.equal(await page.textContent('#case-status'), '1 av 2 underskrifter klara. Vi väntar på en underskrift till.');
    await page.screenshot({ path: join(SCREENSHOTS, 'desktop-signed.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the insured at phone width: a refusal shown in words, then signed and the case complete; the link then opens nothing', async () => {
    const { page, errors } = await watchedPage(PHONE);
    const link = await signingLink(gateway, signCase.signCaseId, 'insured');
    await page.goto(`${link.url}&lang=en`);
    await page.screenshot({ path: join(SCREENSHOTS, 'phone-start.png'), fullPage: true });
    await page.click('#start-other button');
    await page.waitForSelector('#qr-code');
    const box = await page.$eval('#qr-code', (svg) => svg.getBoundingClientRect().width);
    assert.ok(box >= 200 && box <= PHONE.width, `the QR code fits the phone (${box}px)`);
    await page.screenshot({ path: join(SCREENSHOTS, 'phone-qr.png'), fullPage: true });
    testBankId.server.control.cancelInApp(await pendingOrderRef('insured'));
    await page.waitForSelector('#outcome', { timeout: 10_000 });
    assert.equal(await page.textContent('#outcome'), 'You cancelled the signing.');
    await page.screenshot({ path: join(SCREENSHOTS, 'phone-refused.png'), fullPage: true });

    await page.click('#start-other button');
    await page.waitForSelector('#qr-code');
    testBankId.server.control.signThrough(await pendingOrderRef('insured'), INSURED);
    await page.waitForFunction(() => document.getElementById('signing-status')?.textContent?.startsWith('You have signed'), undefined, { timeout: 10_000 });
    assert.equal(await page.textContent('#signing-status'), 'You have signed. Thank you! There is nothing more for you to do.');
    assert.equal(await page.textContent('#case-status'), 'Everyone has signed. There is nothing more for you to do.');
    assert.deepEqual(await page.$$eval('#signatories li', (items) => items.map((item) => item.getAttribute('data-signed'))), ['yes', 'yes']);
    assert.match((await page.textContent('#signatories li[data-own=yes] span'))!, /^Signed \d+ November 2026/);
    await page.screenshot({ path: join(SCREENSHOTS, 'phone-signed.png'), fullPage: true });
    const status = await gateway.deps.db.query<{ status: string }>('SELECT status FROM withdrawal_requests WHERE request_id = $1', [signCase.requestId]);
    assert.equal(status.rows[0]!.status, 'signed', 'the advisor has nothing further to do');

    const again = await page.goto(link.url);
    assert.equal(again!.status(), 404);
    assert.equal(await page.textContent('h1'), 'Länken gäller inte');
    assert.deepEqual(errors, ['Failed to load resource: the server responded with a status of 404 (Not Found)']);
    await page.close();
  });

  test('an application signed on the page by the policyholder and the insured is issued, with nothing more for the advisor to do', async () => {
    const application = await submitApplication(gateway);
    const statusOf = async () => (await asFirm(gateway, { method: 'GET', url: `/InsuranceApplication/${application.applicationId}` })).json() as { status: string; insuranceId: string | null };
    for (const [role, person, viewport, lang] of [['policyholder', POLICYHOLDER, DESKTOP, 'sv'], ['insured', INSURED, PHONE, 'en']] as const) {
      const { page, errors } = await watchedPage(viewport);
      const link = await signingLink(gateway, application.signCaseId, role);
      await page.goto(`${link.url}&lang=${lang}`);
      const text = (await page.textContent('#visible-text'))!;
      assert.match(text, new RegExp(`Ansökan om depåförsäkring[\\s\\S]*${application.applicationId}[\\s\\S]*Engångspremie: 50 000,00 kr`), text);
      await page.screenshot({ path: join(SCREENSHOTS, `application-${role}-start.png`), fullPage: true });
      // The last to sign is told that only their own signature is missing.
      if (role === 'insured') assert.equal(await page.textContent('#case-status'), '1 of 2 signatures done. Only your signature is missing.');
      await page.click('#start-other button');
      await page.waitForSelector('#qr-code');
      testBankId.server.control.signThrough(await pendingOrderRef(role, application.signCaseId), person);
      await page.waitForFunction(() => /^(Du har signerat|You have signed)/.test(document.getElementById('signing-status')?.textContent ?? ''), undefined, { timeout: 10_000 });
      await page.screenshot({ path: join(SCREENSHOTS, `application-${role}-signed.png`), fullPage: true });
      if (role === 'policyholder') {
        assert.equal(await page.textContent('#case-status'), '1 av 2 underskrifter klara. Vi väntar på en underskrift till.');
        const halfway = await statusOf();
        assert.deepEqual([halfway.status, halfway.insuranceId], ['awaiting-signature', null], 'not issued on one signature of two');
      } else {
        assert.equal(await page.textContent('#case-status'), 'Everyone has signed. There is nothing more for you to do.');
      }
      assert.deepEqual(errors, []);
      await page.close();
    }
    const issued = await statusOf();
    assert.equal(issued.status, 'issued');
    const insurance = await gateway.deps.db.query<{ policyholder: string; insured_pin: string }>('SELECT policyholder, insured_pin FROM insurances WHERE insurance_number = $1', [issued.insuranceId]);
    assert.deepEqual(insurance.rows, [{ policyholder: POLICYHOLDER.personalNumber, insured_pin: INSURED.personalNumber }]);
  });

  test('an expired link answers 404', async () => {
    const { page } = await watchedPage(PHONE);
    const link = await signingLink(gateway, other.signCaseId, 'policyholder');
    assert.equal((await page.goto(link.url))!.status(), 200);
    offsetMs = 169 * 3_600_000;
    try {
      const expired = await page.goto(link.url);
      assert.equal(expired!.status(), 404);
      assert.equal(await page.textContent('h1'), 'Länken gäller inte');
      await page.screenshot({ path: join(SCREENSHOTS, 'phone-expired.png'), fullPage: true });
    } finally {
      offsetMs = 0;
    }
    await page.close();
  });
});

/** WCAG 2 contrast of the page's text and controls against their backgrounds: 4.5:1 for text, 3:1 for the focus ring. */
async function checkContrast(page: Page): Promise<void> {
  const measured = await page.evaluate(() => {
    const rgb = (value: string) => (value.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
    const luminance = ([r, g, b]: number[]) => {
      const channel = (c: number) => {
        const s = c / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(r!) + 0.7152 * channel(g!) + 0.0722 * channel(b!);
    };
    const ratio = (a: string, b: string) => {
      const [x, y] = [luminance(rgb(a)), luminance(rgb(b))].sort((p, q) => q - p);
      return (x! + 0.05) / (y! + 0.05);
    };
    /** The first background that is not transparent, from the element up. */
    const background = (element: Element | null): string => {
      for (let at = element; at; at = at.parentElement) {
        const colour = getComputedStyle(at).backgroundColor;
        if (!/rgba\(.*,\s*0\)$/.test(colour) && colour !== 'transparent') return colour;
      }
      return 'rgb(255, 255, 255)';
    };
    const ofElement = (selector: string) => {
      const element = document.querySelector(selector);
      return element ? ratio(getComputedStyle(element).color, background(element)) : -1;
    };
    const button = document.querySelector('#check-status button')!;
    (button as HTMLElement).focus();
    return {
      text: ofElement('main p'), heading: ofElement('h1'), link: ofElement('#language'), status: ofElement('#signing-status'),
      secondaryButton: ofElement('#check-status button'), signatory: ofElement('#signatories li'),
      focusRing: ratio(getComputedStyle(button).outlineColor, background(button.parentElement)),
    };
  });
  for (const [what, ratio] of Object.entries(measured)) assert.ok(ratio >= (what === 'focusRing' ? 3 : 4.5), `${what}: contrast ${ratio.toFixed(2)}:1`);
}
