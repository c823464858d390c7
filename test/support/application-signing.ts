import assert from 'node:assert/strict';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { LocalPerson } from '../../src/bankid/local-bankid-orders.ts';
import type { LocalBankIdServer } from '../../src/bankid/local-bankid-server.ts';

/**
 * Signing a sign case in a test as its signatories do, through the REST API and the
 * local BankID server: for each signatory still to sign, POST /SignCase/{id}/Sign, the
 * person approves the order on the server (its control API stands in for the BankID
 * app), and POST …/Collect counts the signature — three requests a signatory. Company
 * signatories sign until as many as the rule asks have. An application is submitted,
 * signed and read back with submitSigned, which most tests that need an issued
 * insurance or plan use.
 */

/** A REST request as the calling firm (a Bearer token in place). */
export type RestCall = (options: InjectOptions) => Promise<LightMyRequestResponse>;

interface SignCaseView {
  readonly complete: boolean;
  readonly companySignaturesRequired: number | null;
  readonly signatories: readonly { readonly role: string; readonly personalNumber: string; readonly signed: boolean }[];
}

/**
 * Signs the case as its signatories: every one not yet signed, or only those whose
 * personnummer is in `signers`. Returns the case as it stands afterwards.
 */
export async function signCase(rest: RestCall, bankid: LocalBankIdServer, signCaseId: string, signers?: readonly string[]): Promise<SignCaseView> {
  const read = async () => {
    const answer = await rest({ method: 'GET', url: `/SignCase/${signCaseId}` });
    assert.equal(answer.statusCode, 200, answer.body);
    return answer.json() as SignCaseView;
  };
  const before = await read();
  let companySigned = before.signatories.filter((s) => s.role === 'company-signatory' && s.signed).length;
  for (const signatory of before.signatories) {
    if (signatory.signed || (signers && !signers.includes(signatory.personalNumber))) continue;
    const company = signatory.role === 'company-signatory';
    if (company && companySigned >= (before.companySignaturesRequired ?? 0)) continue;
    await signAs(rest, bankid, signCaseId, signatory, person(signatory.personalNumber));
    if (company) companySigned += 1;
  }
  return read();
}

/** One signatory's signature: Sign, the person approves at BankID, Collect; the collected outcome (complete unless `signer` is someone else). */
export async function signAs(
  rest: RestCall, bankid: LocalBankIdServer, signCaseId: string, signatory: { role: string; personalNumber: string }, signer: LocalPerson,
): Promise<{ status: string; signedBy?: string; reason?: string }> {
  const started = await rest({ method: 'POST', url: `/SignCase/${signCaseId}/Sign`, payload: { role: signatory.role, personalNumber: signatory.personalNumber, endUserIp: '192.0.2.10' } });
  assert.ok(started.statusCode === 201 || started.statusCode === 200, started.body);
  const { orderRef } = started.json() as { orderRef: string };
  bankid.control.signThrough(orderRef, signer);
  const collected = await rest({ method: 'POST', url: `/SignCase/${signCaseId}/Collect`, payload: { orderRef } });
  assert.equal(collected.statusCode, 200, collected.body);
  return collected.json() as { status: string; signedBy?: string; reason?: string };
}

/**
 * Submits an application (POST /InsuranceApplication or /PlanApplication), has every
 * signatory sign it, and reads its status back: `issued`, or `under-review` when the
 * review rules ask for a person.
 */
export async function submitSigned<Status extends { applicationId: string; status: string; signCaseId: string }>(
  rest: RestCall, bankid: LocalBankIdServer, url: '/InsuranceApplication' | '/PlanApplication', body: object,
): Promise<Status> {
  const submitted = await rest({ method: 'POST', url, payload: body });
  assert.equal(submitted.statusCode, 201, submitted.body);
  const awaiting = submitted.json() as Status;
  assert.equal(awaiting.status, 'awaiting-signature', submitted.body);
  const signed = await signCase(rest, bankid, awaiting.signCaseId);
  assert.equal(signed.complete, true, JSON.stringify(signed));
  const read = await rest({ method: 'GET', url: `${url}/${awaiting.applicationId}` });
  assert.equal(read.statusCode, 200, read.body);
  return read.json() as Status;
}

/** The staff API registers the organisation's company signatories from 2026-01-01, and how many must sign. */
export async function registerCompanySignatories(
  staff: RestCall, organisationNumber: string, personalNumbers: readonly string[], requiredSignatures: number,
): Promise<void> {
  for (const personalNumber of personalNumbers) {
    const registered = await staff({ method: 'POST', url: `/api/organisations/${organisationNumber}/signatories`, payload: { personalNumber, name: `Signatory ${personalNumber.slice(-4)}`, validFrom: '2026-01-01' } });
    assert.equal(registered.statusCode, 201, registered.body);
  }
  const rule = await staff({ method: 'PUT', url: `/api/organisations/${organisationNumber}/signing-rule`, payload: { requiredSignatures } });
  assert.equal(rule.statusCode, 200, rule.body);
}

/** A person at the local BankID server: their personnummer is what counts; the names are what its completion data carries. */
function person(personalNumber: string): LocalPerson {
  return { personalNumber, givenName: 'Test', surname: `Person ${personalNumber.slice(-4)}` };
}
