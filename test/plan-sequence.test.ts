/**
 * One employer's month for a new employee, sent as separate documents in one folder
 * drop: the insurance is purchased, the salary raised, the category changed, billing
 * stopped for parental leave and started again, an extra premium invoiced, and the
 * employment ended. Every later document depends on an earlier one (the billing stop
 * names the insurance the purchase creates), so they only succeed in arrival order.
 * Real Redis and PostgreSQL, the folder watcher, and several apply workers at once.
 * The person's ledger history must then read exactly as below, and the state as of
 * chosen dates must follow from it.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DEMO } from '../src/demo/demo-data.ts';
import { readPersonHistory } from '../src/ledger/plan/person-history.repository.ts';
import { personStateAsOf } from '../src/core/person-history.ts';
import { dropFile, startTestGateway, waitFor, type TestGateway } from './support/harness.ts';
import { planDocument } from './support/documents.ts';

const FILIP = DEMO.persons.filip;
const ANNA = DEMO.persons.anna;
/** The first number the gateway gives a purchased insurance on a fresh ledger. */
const NEW_INSURANCE = 'INS-200001';


const fields = (pairs: [string, string][]) => pairs.map(([name, value]) => `    <${name}>${value}</${name}>\n`).join('');

/** The month, in the order the employer's HR system wrote the files. */
const MONTH: { name: string; xml: string }[] = [
  {
    name: '01-purchase.xml',
    xml: planDocument('Insurancepurchase', 'SEQ-01', [
      fields([['PersonalIdentityNumber', FILIP], ['ProductCode', 'TJP-DEPA'], ['StartDate', '2026-11-01'], ['MonthlyPremium', '2000.00']]) +
        `    <Allocation>\n      <Fund>\n        <Isin>${DEMO.funds.globalIndex}</Isin>\n        <Percent>70</Percent>\n      </Fund>\n` +
        `      <Fund>\n        <Isin>${DEMO.funds.interest}</Isin>\n        <Percent>30</Percent>\n      </Fund>\n    </Allocation>\n`,
    ]),
  },
  { name: '02-salary.xml', xml: planDocument('SalaryAdjustment', 'SEQ-02', [fields([['PersonalIdentityNumber', FILIP], ['EffectiveDate', '2026-11-01'], ['AnnualSalary', '540000.00']])]) },
  { name: '03-category.xml', xml: planDocument('ChangeCategory', 'SEQ-03', [fields([['PersonalIdentityNumber', FILIP], ['EffectiveDate', '2026-11-01'], ['CategoryCode', 'FAST']])]) },
  {
    name: '04-billing-stop.xml',
    xml: planDocument('BillingStop', 'SEQ-04', [fields([['PersonalIdentityNumber', FILIP], ['InsuranceNumber', NEW_INSURANCE], ['StopDate', '2026-11-15'], ['Reason', 'ParentalLeave']])]),
  },
  // An unrelated document of the same agreement in the middle of the drop.
  { name: '05-other-salary.xml', xml: planDocument('SalaryAdjustment', 'SEQ-05', [fields([['PersonalIdentityNumber', ANNA], ['EffectiveDate', '2026-11-01'], ['AnnualSalary', '612000.00']])]) },
  { name: '06-billing-start.xml', xml: planDocument('BillingStart', 'SEQ-06', [fields([['PersonalIdentityNumber', FILIP], ['InsuranceNumber', NEW_INSURANCE], ['StartDate', '2026-12-01']])]) },
  {
    name: '07-extra-premium.xml',
    xml: planDocument('ExtraPremium', 'SEQ-07', [fields([['PersonalIdentityNumber', FILIP], ['InsuranceNumber', NEW_INSURANCE], ['Amount', '25000.00'], ['DueDate', '2026-12-15']])]),
  },
  { name: '08-employment-ended.xml', xml: planDocument('EmploymentEnded', 'SEQ-08', [fields([['PersonalIdentityNumber', FILIP], ['EndDate', '2026-12-31'], ['Reason', 'Resignation']])]) },
];

describe("one employer's month in one folder drop", () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      roles: ['worker', 'watch'],
      settings: { workers: { validateConcurrency: 4, applyConcurrency: 4, deliverConcurrency: 4 }, folders: { stableMs: 100, pollIntervalMs: 20 } },
    });
  });
  afterAll(() => gateway.destroy());

  test('is applied in arrival order and the history reads exactly as expected', async () => {
    const inbox = gateway.inbox('demo-employer');
    for (const document of MONTH) await dropFile(inbox, document.name, document.xml);

    const outbox = gateway.outbox('demo-employer');
    const responses = await waitFor(async () => {
      const names = (await readdir(outbox)).filter((name) => name.endsWith('Response.xml'));
      return names.length === MONTH.length && names;
    }, 'a response to every document of the month', 30_000);
    for (const document of MONTH) {
      const name = responses.find((file) => file.startsWith(document.name.replace(/\.xml$/, '.')));
      assert.ok(name, `a response to ${document.name}`);
      const body = await readFile(join(outbox, name), 'utf8');
      assert.match(body, /<Status>Accepted<\/Status>\n {2}<\/Header>/, `${document.name} accepted:\n${body}`);
      if (document.name === '01-purchase.xml') assert.match(body, new RegExp(`<Reference>${NEW_INSURANCE}</Reference>`));
    }

    const { rows: order } = await gateway.deps.db.query<{ external_id: string }>(
      `SELECT external_id FROM messages WHERE counterparty_id = 'demo-employer' ORDER BY seq`,
    );
    assert.deepEqual(order.map((row) => row.external_id), MONTH.map((document) => document.name), 'recorded in arrival order');

    const history = await readPersonHistory(gateway.deps.db, DEMO.agreementNumber, FILIP);
    assert.ok(history);
    assert.deepEqual(history, {
      agreementNumber: DEMO.agreementNumber,
      personalIdentityNumber: FILIP,
      employment: { startDate: '2026-10-01', endDate: '2026-12-31', endReason: 'Resignation' },
      salaries: [{ effectiveDate: '2026-10-01', annualSalary: '480000.00' }, { effectiveDate: '2026-11-01', annualSalary: '540000.00' }],
      categories: [{ effectiveDate: '2026-10-01', categoryCode: 'TJM' }, { effectiveDate: '2026-11-01', categoryCode: 'FAST' }],
      costCenters: [{ effectiveDate: '2026-10-01', costCenter: '300' }],
      insurances: [{
        insuranceNumber: NEW_INSURANCE,
        productCode: 'TJP-DEPA',
        startDate: '2026-11-01',
        paidUpFrom: '2027-01-01',
        premiums: [{ effectiveDate: '2026-11-01', monthlyAmount: '2000.00' }],
        fees: [{ effectiveDate: '2026-11-01', feeType: 'FixedCharge', value: '360.0000' }],
        billing: [
          { effectiveDate: '2026-11-15', event: 'Stop', reason: 'ParentalLeave' },
          { effectiveDate: '2026-12-01', event: 'Start', reason: null },
        ],
        end: null,
        extraPremiums: [{ invoiceNumber: 'XP-000001', amount: '25000.00', dueDate: '2026-12-15' }],
        allocations: [{
          effectiveDate: '2026-11-01', purpose: 'DistributionPlan',
          funds: [{ isin: DEMO.funds.globalIndex, percent: '70' }, { isin: DEMO.funds.interest, percent: '30' }],
        }],
        transfers: [],
      }],
    });

    const inLeave = personStateAsOf(history, '2026-11-20');
    assert.deepEqual(
      { salary: inLeave.annualSalary, category: inLeave.categoryCode, billingStopped: inLeave.insurances[0]?.billingStopped, employed: inLeave.employed },
      { salary: '540000.00', category: 'FAST', billingStopped: true, employed: true },
    );
    const afterLeave = personStateAsOf(history, '2026-12-20');
    assert.equal(afterLeave.insurances[0]?.billingStopped, false);
    assert.equal(afterLeave.insurances[0]?.paidUp, false);
    const afterEnd = personStateAsOf(history, '2027-01-01');
    assert.equal(afterEnd.employed, false);
    assert.equal(afterEnd.insurances[0]?.paidUp, true);
  });
});
