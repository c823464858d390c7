/**
 * An insurance that has ended, on real PostgreSQL through the staff API: staff record
 * that bertil's INS-100002 moved to another insurer (last day in force 2026-10-31). A
 * month later the employer's documents about it are refused item by item with
 * INSURANCE_ENDED — an extra premium (which was accepted and invoiced before), a premium
 * change, a billing stop and a transfer — while their items about other insurances are
 * accepted; an employment end makes his other insurance paid-up, not the ended one; a
 * new insurance of the same product may be bought for him. The person view shows the
 * end (date and cause) and no premium after it, as JSON and as the CLI prints it.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import type { PersonView } from '../src/cli/person-view.ts';
import { formatPerson } from '../src/cli/person-view.ts';
import { PERSONS, employmentEnded, planDocument } from './support/documents.ts';
import { startTestGateway, waitFor, type TestGateway } from './support/harness.ts';

const STAFF = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };
const ENDED = 'INS-100002';

describe('an ended insurance', () => {
  let gateway: TestGateway;
  const sql = async <Row>(text: string, params: unknown[] = []) => (await gateway.deps.db.query<Row>(text, params)).rows;

  /** Sends a document as the demo employer through the staff API; gives its response's items (id, status, code). */
  async function send(document: string, name: string): Promise<{ itemId: string; status: string; code: string | undefined }[]> {
    const posted = await gateway.http!.inject({
      method: 'POST', url: `/api/messages?from=demo-employer&name=${name}.xml`, headers: { ...STAFF, 'content-type': 'application/xml' }, payload: document,
    });
    assert.equal(posted.statusCode, 202, posted.body);
    const id = (posted.json() as { messageId: string }).messageId;
    await waitFor(async () => ['applied', 'rejected'].includes((await sql<{ status: string }>('SELECT status FROM messages WHERE id = $1', [id]))[0]?.status ?? ''), `${name} answered`);
    const [response] = await sql<{ body: string }>('SELECT body FROM responses WHERE message_id = $1', [id]);
    return [...response!.body.matchAll(/<Item>\s*<ItemId>([^<]+)<\/ItemId>\s*<Status>([^<]+)<\/Status>(?:\s*<Code>([^<]+)<\/Code>)?/g)]
      .map(([, itemId, status, code]) => ({ itemId: itemId!, status: status!, code }));
  }

  beforeAll(async () => {
    gateway = await startTestGateway({ roles: ['api', 'worker'] });
    const ended = await gateway.http!.inject({ method: 'POST', url: `/api/insurances/${ENDED}/end`, headers: STAFF, payload: { cause: 'transferred-out', date: '2026-10-31' } });
    assert.equal(ended.statusCode, 201, ended.body);
  });
  afterAll(() => gateway.destroy());

  test('documents about it are refused item by item with INSURANCE_ENDED; items about other insurances are applied', async () => {
    const bertil = PERSONS.bertil;
    const items = await send(planDocument('ExtraPremium', 'ENDED-XP', [
      `    <PersonalIdentityNumber>${bertil}</PersonalIdentityNumber>\n    <InsuranceNumber>${ENDED}</InsuranceNumber>\n    <Amount>15000</Amount>\n    <DueDate>2026-12-01</DueDate>\n`,
      `    <PersonalIdentityNumber>${PERSONS.anna}</PersonalIdentityNumber>\n    <InsuranceNumber>INS-100001</InsuranceNumber>\n    <Amount>15000</Amount>\n    <DueDate>2026-12-01</DueDate>\n`,
    ]), 'ended-xp');
    assert.deepEqual(items, [
      { itemId: 'ENDED-XP-1', status: 'Rejected', code: 'INSURANCE_ENDED' },
      { itemId: 'ENDED-XP-2', status: 'Accepted', code: undefined },
    ]);
    assert.deepEqual(await sql('SELECT insurance_number FROM extra_premiums ORDER BY id'), [{ insurance_number: 'INS-100001' }], 'no invoice for the ended insurance');

    const premium = await send(planDocument('PremiumAdjustment', 'ENDED-PA', [
      `    <PersonalIdentityNumber>${bertil}</PersonalIdentityNumber>\n    <InsuranceNumber>${ENDED}</InsuranceNumber>\n    <EffectiveDate>2026-09-01</EffectiveDate>\n    <MonthlyPremium>2500</MonthlyPremium>\n`,
    ]), 'ended-pa');
    assert.deepEqual(premium, [{ itemId: 'ENDED-PA-1', status: 'Rejected', code: 'INSURANCE_ENDED' }], 'refused whatever the date: even one before the end');
    const stop = await send(planDocument('BillingStop', 'ENDED-BS', [
      `    <PersonalIdentityNumber>${bertil}</PersonalIdentityNumber>\n    <InsuranceNumber>${ENDED}</InsuranceNumber>\n    <StopDate>2026-12-01</StopDate>\n    <Reason>ParentalLeave</Reason>\n`,
    ]), 'ended-bs');
    assert.deepEqual(stop, [{ itemId: 'ENDED-BS-1', status: 'Rejected', code: 'INSURANCE_ENDED' }]);
    const transfer = await send(planDocument('Transfer', 'ENDED-TR', [
      `    <PersonalIdentityNumber>${bertil}</PersonalIdentityNumber>\n    <InsuranceNumber>${ENDED}</InsuranceNumber>\n    <EffectiveDate>2026-12-01</EffectiveDate>\n    <ToProductCode>TJP-DEPA-ESG</ToProductCode>\n`,
    ]), 'ended-tr');
    assert.deepEqual(transfer, [{ itemId: 'ENDED-TR-1', status: 'Rejected', code: 'INSURANCE_ENDED' }]);
    const changed = await sql<{ n: number }>(
      `SELECT (SELECT count(*) FROM insurance_premiums WHERE insurance_number = $1 AND message_id IS NOT NULL AND message_id <> 'demo-seed')::int
            + (SELECT count(*) FROM billing_events WHERE insurance_number = $1 AND message_id <> 'demo-seed')::int
            + (SELECT count(*) FROM insurance_transfers WHERE insurance_number = $1)::int AS n`, [ENDED]);
    assert.equal(changed[0]?.n, 0, 'nothing written for the ended insurance');
  });

  test('a new insurance of the same product may be bought after the end; an employment end makes only the insurances in force paid-up', async () => {
    const bought = await send(planDocument('Insurancepurchase', 'ENDED-IP', [
      `    <PersonalIdentityNumber>${PERSONS.bertil}</PersonalIdentityNumber>\n    <ProductCode>TJP-DEPA</ProductCode>\n    <StartDate>2026-11-01</StartDate>\n    <MonthlyPremium>1500</MonthlyPremium>\n` +
        '    <Allocation>\n      <Fund>\n        <Isin>SE000DEPA010</Isin>\n        <Percent>100</Percent>\n      </Fund>\n    </Allocation>\n',
    ]), 'ended-ip');
    assert.deepEqual(bought.map((item) => [item.status, item.code]), [['Accepted', undefined]], 'the ended TJP-DEPA insurance is no longer held');
    const ended = await send(employmentEnded({ messageId: 'ENDED-EE' }, [{ pin: PERSONS.bertil, endDate: '2026-11-30', reason: 'Resignation' }]), 'ended-ee');
    assert.deepEqual(ended.map((item) => item.status), ['Accepted']);
    const paidUp = await sql<{ insurance_number: string }>(
      `SELECT u.insurance_number FROM insurance_paid_up u JOIN insurances i USING (insurance_number) WHERE i.insured_pin = $1 ORDER BY 1`, [PERSONS.bertil]);
    assert.deepEqual(paidUp.map((row) => row.insurance_number).filter((number) => number === ENDED), [], 'the ended insurance is not made paid-up');
    assert.ok(paidUp.length > 0, 'the insurance bought after it is');
  });

  test('the person view shows the end, date and cause, and no premium after it; on its last day it is still in force', async () => {
    const url = `/api/agreements/AGR-1001/persons/${PERSONS.bertil}`;
    const after = (await gateway.http!.inject({ url: `${url}?asOf=2026-11-22`, headers: STAFF })).json() as PersonView;
    const state = after.state.insurances.find((insurance) => insurance.insuranceNumber === ENDED);
    assert.deepEqual([state?.ended, state?.monthlyPremium], [{ lastDay: '2026-10-31', cause: 'transferred-out' }, null]);
    assert.deepEqual(after.history.insurances.find((insurance) => insurance.insuranceNumber === ENDED)?.end, { lastDay: '2026-10-31', cause: 'transferred-out' });
    const lastDay = (await gateway.http!.inject({ url: `${url}?asOf=2026-10-31`, headers: STAFF })).json() as PersonView;
    const inForce = lastDay.state.insurances.find((insurance) => insurance.insuranceNumber === ENDED);
    assert.equal(inForce?.ended, null);
    assert.notEqual(inForce?.monthlyPremium, null, 'its premium while in force');

    const text = formatPerson(after);
    assert.match(text, new RegExp(`^ {2}${ENDED} TJP-DEPA: ended 2026-10-31 \\(transferred-out\\)$`, 'm'));
    assert.doesNotMatch(text.split('history:')[0]!, new RegExp(`${ENDED}[^\\n]*premium`), 'no premium in its state line');
    assert.match(text, new RegExp(`^ {2}2026-10-31 {2}${ENDED} ended \\(transferred-out\\), its last day in force$`, 'm'));
  });
});
