/**
 * Issued means real, coverages included: insurance applications submitted through the
 * REST API on a real gateway (PostgreSQL, the demo ledger) and signed by the policyholder
 * with BankID (the local BankID server) record the coverages chosen,
 * and the next debit run charges the risk premium of exactly those — repayment
 * protection on the capital, premium waiver on the premiums due — and none for an
 * insurance that chose neither. A capital insurance always carries repayment
 * protection: applied for without it, it is refused.
 */
import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { submitSigned, type RestCall } from './support/application-signing.ts';
import { startTestBankId } from './support/bankid.ts';
import { startTestGateway } from './support/harness.ts';
import { hashSecret } from '../src/config/secret-hash.ts';
import { runDebitRun, runDepsFrom } from '../src/calendar/debit-run.ts';

const ANNA = '197001011233';
const application = {
  productId: 'KF-DEPA', advisorCode: 'ADV-001', policyholder: { id: ANNA }, insured: { id: ANNA },
  premium: { single: '50000.00', monthly: '1000' }, funds: [{ isin: 'SE000DEPA010', percent: 100 }],
  custodianId: 'demo-custodian', beneficiary: { choice: 'standard' },
};

test('the coverages an application chose are recorded at issue and charged by the next debit run', async () => {
  // Issued on Tuesday 10 February 2026: in force 50 of Q1's 90 days, in two of its months.
  const now = new Date('2026-02-10T09:30:00Z');
  const clients = [{ id: 'firm', kind: 'advisor-firm', organisationNumber: '5565555553', secretHash: await hashSecret('firm-secret') }];
  const testBankId = await startTestBankId();
  const gateway = await startTestGateway({ roles: ['api'], inline: true, clock: () => now, settings: { api: { tokenRequestsPerMinute: 1000, clients }, bankid: await testBankId.settings() } });
  try {
    const token = (await gateway.http!.inject({
      method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials&client_id=firm&client_secret=firm-secret',
    })).json() as { access_token: string };
    const firm: RestCall = (options) => gateway.http!.inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${token.access_token}` } });
    /** Submitted, signed by Anna and issued: its insurance. */
    const issue = async (coverages: { repaymentProtection: boolean; premiumWaiver: boolean }, productId = application.productId): Promise<string> => {
      const saved = await submitSigned<{ applicationId: string; status: string; signCaseId: string; insuranceId: string }>(
        firm, testBankId.server, '/InsuranceApplication', { ...application, productId, coverages });
      assert.equal(saved.status, 'issued');
      return saved.insuranceId;
    };
    // KF-DEPA is a capital insurance (K): without repayment protection it is refused, and nothing is saved.
    const refused = await gateway.http!.inject({
      method: 'POST', url: '/InsuranceApplication', headers: { authorization: `Bearer ${token.access_token}` },
      payload: { ...application, coverages: { repaymentProtection: false, premiumWaiver: true } },
    });
    assert.equal(refused.statusCode, 422, refused.body);
    const problem = refused.json() as { code: string; errors: { path: string; code: string; message: string }[] };
    assert.equal(problem.code, 'APPLICATION_INVALID');
    assert.deepEqual(problem.errors, [{
      path: '$.coverages.repaymentProtection', code: 'REPAYMENT_PROTECTION_REQUIRED',
      message: 'KF-DEPA is a capital insurance (K), which always carries repayment protection: set it to true.',
    }]);
    const { rows: saved } = await gateway.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM insurances WHERE start_date = $1', ['2026-02-10']);
    assert.equal(saved[0]!.n, 0);

    const protectedOne = await issue({ repaymentProtection: true, premiumWaiver: false });
    // A private pension (P) may go without either.
    const uncovered = await issue({ repaymentProtection: false, premiumWaiver: false }, 'PPF-DEPA');
    const waived = await issue({ repaymentProtection: false, premiumWaiver: true }, 'PPF-DEPA');
    const ours = [protectedOne, uncovered, waived];

    const db = gateway.deps.db;
    const recorded = await db.query<{ insurance_number: string; coverage_type: string; from_date: string }>(
      `SELECT insurance_number, coverage_type, from_date::text FROM insurance_coverages WHERE insurance_number = ANY($1::text[]) ORDER BY insurance_number`, [ours],
    );
    assert.deepEqual(recorded.rows, [
      { insurance_number: protectedOne, coverage_type: 'repaymentProtection', from_date: '2026-02-10' },
      { insurance_number: waived, coverage_type: 'premiumWaiver', from_date: '2026-02-10' },
    ]);

    // The custodian reports 1 000 000.00 on each new account from the day of issue.
    await db.query(
      `INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
       SELECT custody_account, DATE '2026-02-10', 100000.00, 900000.00, 1000000.00, 1, 'test' FROM insurances WHERE insurance_number = ANY($1::text[])`,
      [ours],
    );
    const deps = runDepsFrom(gateway.config, gateway.deps.scheduler, gateway.log);
    await db.transaction((tx) => runDebitRun(tx, deps, { year: 2026, quarter: 1 }, new Date('2026-04-30T06:00:00Z')));
    const lines = await db.query<{ insurance_number: string; amount: string }>(
      `SELECT insurance_number, amount::text FROM debit_lines WHERE run_key = '2026-Q1' AND charge = 'RiskPremium' AND insurance_number = ANY($1::text[]) ORDER BY insurance_number`,
      [ours],
    );
    assert.deepEqual(lines.rows, [
      // Anna is 56: 0.25 per 1 000 a month × 1 000 000.00 × 3 months × 50/90 days = 416.666… → 416.67.
      { insurance_number: protectedOne, amount: '416.67' },
      // 3.5 % of the premiums due: 1 000 a month in February and March.
      { insurance_number: waived, amount: '70.00' },
    ]);
    const charged = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM debit_lines WHERE run_key = '2026-Q1' AND insurance_number = $1 AND charge IN ('FixedCharge', 'CapitalCharge')`, [uncovered],
    );
    assert.equal(charged.rows[0]!.n, '2', 'the insurance without coverages is debited its charges, only no risk premium');
  } finally {
    await gateway.destroy();
    await testBankId.close();
  }
});
