import assert from 'node:assert/strict';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { LocalPerson } from '../../src/bankid/local-bankid-orders.ts';
import type { LocalBankIdServer } from '../../src/bankid/local-bankid-server.ts';
import { submitSigned } from './application-signing.ts';
import type { TestGateway } from './harness.ts';

/**
 * Sign cases with two signatories to sign on the signing page, made through the REST API
 * as an advisor firm makes them: the firm's intermediation power on the policyholder, an
 * application for a capital insurance of the policyholder on another person's life (so
 * its case has a policyholder and an insured), and, once that is signed and issued, its
 * custody value, a validated withdrawal account and a withdrawal request of 12 500 kr.
 * The gateway's REST API needs the client `firm` (advisorFirmApi in ./bankid.ts) and
 * BankID (the local server, startTestBankId).
 */
export const POLICYHOLDER: LocalPerson = { personalNumber: '198506152381', givenName: 'Tove', surname: 'Lind' };
export const INSURED: LocalPerson = { personalNumber: '199203033452', givenName: 'Ebbe', surname: 'Lind' };
export const STRANGER: LocalPerson = { personalNumber: '197905202388', givenName: 'Nils', surname: 'Holm' };
const VALIDATED = '50001234560';
const STAFF = { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` };

export interface TwoSignatoryCase {
  readonly insuranceNumber: string;
  readonly requestId: string;
  readonly signCaseId: string;
}

/** The REST API as the advisor firm's client `firm`. */
export async function asFirm(gateway: TestGateway, options: InjectOptions): Promise<LightMyRequestResponse> {
  const token = await gateway.http!.inject({
    method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=client_credentials&client_id=firm&client_secret=firm-secret',
  });
  return gateway.http!.inject({ ...options, headers: { ...options.headers, authorization: `Bearer ${(token.json() as { access_token: string }).access_token}` } });
}

/** The application the cases' insurance comes from: the policyholder's capital insurance on the insured's life. */
export const APPLICATION = {
  productId: 'KF-DEPA', advisorCode: 'ADV-001', policyholder: { id: POLICYHOLDER.personalNumber }, insured: { id: INSURED.personalNumber },
  premium: { single: '50000.00', monthly: '1000' }, funds: [{ isin: 'SE000DEPA010', percent: 100 }],
  custodianId: 'demo-custodian', beneficiary: { choice: 'standard' }, coverages: { repaymentProtection: true, premiumWaiver: false },
} as const;

/** The firm's intermediation power on the policyholder, from 2026-01-01 (once per gateway). */
async function grantFirmPower(gateway: TestGateway): Promise<void> {
  const power = await gateway.http!.inject({
    method: 'POST', url: '/api/powers-of-attorney', headers: STAFF,
    payload: { holderOrganisationNumber: '5565555553', customerId: POLICYHOLDER.personalNumber, kind: 'intermediation', validFrom: '2026-01-01' },
  });
  assert.equal(power.statusCode, 201, power.body);
}

/**
 * The insurance, once per gateway: the power, the application signed by the policyholder
 * and the insured through the REST API and BankID (test/support/application-signing.ts)
 * and so issued, its custody value and the withdrawal account.
 */
export async function prepareWithdrawableInsurance(gateway: TestGateway, bankid: LocalBankIdServer, today: string): Promise<string> {
  await grantFirmPower(gateway);
  const issued = await submitSigned<{ applicationId: string; status: string; signCaseId: string; insuranceId: string }>(
    (options) => asFirm(gateway, options), bankid, '/InsuranceApplication', APPLICATION,
  );
  assert.equal(issued.status, 'issued');
  const insuranceNumber = issued.insuranceId;
  const db = gateway.deps.db;
  await db.query(
    `INSERT INTO custody_valuations (account_number, as_of, cash, positions_value, total_value, position_count, message_id)
     SELECT custody_account, $2, 2000, 118000, 120000, 1, 'test-holdings' FROM insurances WHERE insurance_number = $1`, [insuranceNumber, today],
  );
  await db.query(
    `INSERT INTO withdrawal_accounts (registration_id, customer_id, account_digits, clearing_number, account_number, bank_name, registered_at, registered_by, validation_day, status, decided_at)
     VALUES ('WA-SIGNING-PAGE', $1, $2, '5000', '1234560', 'SEB', now(), 'client:firm', $3, 'validated', now())`,
    [POLICYHOLDER.personalNumber, VALIDATED, today],
  );
  return insuranceNumber;
}

/** The application submitted by the firm (the power granted already): awaiting the policyholder's and the insured's signatures. */
export async function submitApplication(gateway: TestGateway): Promise<{ applicationId: string; signCaseId: string }> {
  const submitted = await asFirm(gateway, { method: 'POST', url: '/InsuranceApplication', payload: APPLICATION });
  assert.equal(submitted.statusCode, 201, submitted.body);
  const { applicationId, signCaseId, status } = submitted.json() as { applicationId: string; signCaseId: string; status: string };
  assert.equal(status, 'awaiting-signature');
  return { applicationId, signCaseId };
}

/** A withdrawal request of the insurance, and its sign case (policyholder and insured). */
export async function requestWithdrawal(gateway: TestGateway, insuranceNumber: string, amount = '12500.00'): Promise<TwoSignatoryCase> {
  const created = await asFirm(gateway, { method: 'POST', url: '/Insurance/withdrawalrequest', payload: { insuranceNumber, amount, accountNumber: VALIDATED } });
  assert.equal(created.statusCode, 201, created.body);
  const { requestId, signCaseId } = created.json() as { requestId: string; signCaseId: string };
  return { insuranceNumber, requestId, signCaseId };
}

/** A signatory's signing link through the REST API: its path and query (`/sign/…?t=…`), token and expiry. */
export async function signingLink(gateway: TestGateway, signCaseId: string, role: string): Promise<{ path: string; token: string; url: string; expiresAt: string }> {
  const answer = await asFirm(gateway, { method: 'POST', url: `/SignCase/${signCaseId}/Link`, payload: { role } });
  assert.equal(answer.statusCode, 201, answer.body);
  const { url, expiresAt } = answer.json() as { url: string; expiresAt: string };
  const parsed = new URL(url);
  return { path: `${parsed.pathname}${parsed.search}`, token: parsed.searchParams.get('t')!, url, expiresAt };
}
