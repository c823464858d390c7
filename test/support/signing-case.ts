import assert from 'node:assert/strict';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { LocalPerson } from '../../src/bankid/local-bankid-orders.ts';
import type { TestGateway } from './harness.ts';

/**
 * A sign case with two signatories to sign on the signing page, made through the REST API
 * as an advisor firm makes one: the firm's intermediation power on the policyholder, a
 * capital insurance of the policyholder on another person's life (so the case has a
 * policyholder and an insured), its custody value, a validated withdrawal account and a
 * withdrawal request of 12 500 kr. The gateway's REST API needs the client `firm`
 * (advisorFirmApi in ./bankid.ts).
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

/** The insurance, once per gateway: power, application, custody value and account. */
export async function prepareWithdrawableInsurance(gateway: TestGateway, today: string): Promise<string> {
  const power = await gateway.http!.inject({
    method: 'POST', url: '/api/powers-of-attorney', headers: STAFF,
    payload: { holderOrganisationNumber: '5565555553', customerId: POLICYHOLDER.personalNumber, kind: 'intermediation', validFrom: '2026-01-01' },
  });
  assert.equal(power.statusCode, 201, power.body);
  const issued = await asFirm(gateway, {
    method: 'POST', url: '/InsuranceApplication', payload: {
      productId: 'KF-DEPA', advisorCode: 'ADV-001', policyholder: { id: POLICYHOLDER.personalNumber }, insured: { id: INSURED.personalNumber },
      premium: { single: '50000.00', monthly: '1000' }, funds: [{ isin: 'SE000DEPA010', percent: 100 }],
      custodianId: 'demo-custodian', beneficiary: { choice: 'standard' }, coverages: { repaymentProtection: true, premiumWaiver: false },
    },
  });
  assert.equal(issued.statusCode, 201, issued.body);
  const insuranceNumber = (issued.json() as { insuranceId: string }).insuranceId;
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
