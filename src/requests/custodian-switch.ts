import { ulid } from 'ulid';
import { stockholmDate, type IsoDate } from '../core/calendar-date.ts';
import { companySigningOf, inForceOn } from '../core/company-signatories.rules.ts';
import { switchRegistrationProblems, switchSignText, type SwitchProblem } from '../core/custodian-switch.rules.ts';
import { GatewayError } from '../core/gateway-error.ts';
import { signatoriesOf, type Signatory } from '../core/withdrawal-request.rules.ts';
import { companySigningRegister } from '../ledger/advice/company-signatories.repository.ts';
import {
  accountInLedger, addSwitchEvent, insertSwitch, lockSwitch, lockSwitchInsurance, nextSwitchId, openNewAccount, openSwitchOf, stepSwitch, switchInsurance,
  switchInsuranceFacts,
} from '../ledger/custody/custodian-switches.repository.ts';
import type { Database, Sql } from '../ledger/database.ts';
import type { AccessGate } from '../ledger/advice/powers-of-attorney.repository.ts';
import { closeSignCase, insertSignCase } from '../ledger/advice/sign-cases.repository.ts';
import { CUSTODIAN_SWITCH_ORDER, custodianSwitchOrderId, custodianSwitchOrderXml } from '../messages/custodian-switch-order.document.ts';
import type { RunDeps } from '../calendar/debit-run.ts';
import type { CountedSignature } from './counted-signature.ts';

/**
 * Registering a custodian switch and ordering it, wherever it comes from: an advisor firm
 * holding an intermediation power (POST /Insurance/{insuranceNumber}/custodianswitch),
 * or the insurer's staff (staff API, `depot-gateway custodian-switches register`). Every
 * switch gets a sign case the policyholder signs as a withdrawal (Sign, Collect, the
 * signing page); the last signature orders it: the CustodianSwitchOrder is stored for the
 * releasing custodian in that signature's transaction and handed to delivery after the
 * commit (signed-requests.ts), so it is recorded exactly once and delivered at least once
 * under one file name.
 *
 * Invariants:
 * - registered under the insurance's row lock: at most one open switch per insurance
 *   (and a unique index behind it); a refused registration saves nothing and names every
 *   problem;
 * - ordered once: the switch moves from `requested` to `ordered` under its row lock, and
 *   the order's document id is the switch's (CSO-<switch id>).
 */
export interface NewSwitchInput {
  readonly insuranceNumber: string;
  readonly toCustodian: string;
  /** The new account at the receiving custodian, when already known. */
  readonly toAccount?: string | undefined;
  /** `client:<id>`, `staff:<user>` or `cli:<account>`. */
  readonly requestedBy: string;
  /** How a staff registration reached the insurer (channel and reference). */
  readonly note?: string | undefined;
  readonly now: Date;
}

export type NewSwitchOutcome =
  | { readonly made: true; readonly switchId: string }
  | { readonly made: false; readonly problems: readonly SwitchProblem[] }
  | { readonly made: false; readonly notFound: true };

export async function makeCustodianSwitch(db: Database, custodians: ReadonlySet<string>, input: NewSwitchInput, mayAct?: AccessGate): Promise<NewSwitchOutcome> {
  const { now } = input;
  return db.transaction(async (tx): Promise<NewSwitchOutcome> => {
    await lockSwitchInsurance(tx, input.insuranceNumber);
    const insurance = await switchInsuranceFacts(tx, input.insuranceNumber, mayAct);
    if (!insurance) return { made: false, notFound: true };
    const open = await openSwitchOf(tx, insurance.insuranceNumber);
    const problems = switchRegistrationProblems({
      insuranceNumber: insurance.insuranceNumber, ended: insurance.ended, currentCustodian: insurance.custodianId, toCustodian: input.toCustodian,
      custodians, openSwitchId: open?.switchId, newAccountTaken: input.toAccount !== undefined && await accountInLedger(tx, input.toAccount),
    });
    const signing = await signingOf(tx, insurance.policyholder, insurance.insuredPin, stockholmDate(now));
    if ('problem' in signing) problems.push(signing.problem);
    if (problems.length > 0 || 'problem' in signing) return { made: false, problems };
    const switchId = await nextSwitchId(tx);
    await insertSwitch(tx, { switchId, insurance, toCustodian: input.toCustodian, toAccount: input.toAccount, requestedAt: now, requestedBy: input.requestedBy, note: input.note });
    await insertSignCase(tx, {
      signCaseId: `SC-${ulid(now.getTime())}`, subject: { kind: 'custodian-switch', id: switchId }, customerId: insurance.policyholder, custodianId: insurance.custodianId,
      visibleText: switchSignText({ insuranceNumber: insurance.insuranceNumber, fromCustodian: insurance.custodianId, toCustodian: input.toCustodian }),
      signatories: signing.signatories, companySignaturesRequired: signing.required, createdAt: now,
    });
    return { made: true, switchId };
  });
}

/** A staff registration: refused with the first problem's code and every problem in the message. */
export async function registerSwitchForCustomer(db: Database, custodians: ReadonlySet<string>, input: NewSwitchInput): Promise<string> {
  const outcome = await makeCustodianSwitch(db, custodians, input);
  if (outcome.made) return outcome.switchId;
  if ('notFound' in outcome) throw new GatewayError('RESOURCE_NOT_FOUND', `No insurance ${input.insuranceNumber}.`);
  throw new GatewayError(outcome.problems[0]!.code, outcome.problems.map((p) => p.message).join(' '));
}

/**
 * What a counted signature of a switch's sign case does: it is written to the switch's
 * history, and the last one orders the switch. Answers the id of the order it stored.
 */
export function custodianSwitchSigned(deps: Pick<RunDeps, 'custodians' | 'insurerOrganisationNumber'>) {
  return async (tx: Sql, switchId: string, signature: CountedSignature, now: Date): Promise<string[]> => {
    await addSwitchEvent(tx, switchId, 'signed', now, `bankid:${signature.personalNumber}`, signature.role);
    const insuranceNumber = await switchInsurance(tx, switchId);
    if (insuranceNumber === undefined) return [];
    await lockSwitchInsurance(tx, insuranceNumber);
    const locked = await lockSwitch(tx, switchId);
    if (!locked || locked.status !== 'requested' || !locked.fullySigned) return [];
    const releasing = deps.custodians.get(locked.fromCustodian);
    const receiving = deps.custodians.get(locked.toCustodian);
    if (!releasing || !receiving) {
      const missing = releasing ? locked.toCustodian : locked.fromCustodian;
      await stepSwitch(tx, switchId, 'requested', 'closed', { closed_at: now });
      await addSwitchEvent(tx, switchId, 'refused', now, 'custodian-switch', `CUSTODIAN_SWITCH_NOT_ALLOWED: ${missing} is no longer a configured custodian.`);
      return [];
    }
    const documentId = custodianSwitchOrderId(switchId);
    const body = custodianSwitchOrderXml({
      switchId, createdAt: now, insurerOrganisationNumber: deps.insurerOrganisationNumber, custodianOrganisationNumber: releasing.organisationNumber,
      insuranceNumber, accountNumber: locked.fromAccount,
      receiving: { organisationNumber: receiving.organisationNumber, name: locked.toCustodian, accountNumber: locked.toAccount }, signedAt: now,
    });
    await tx.query(
      `INSERT INTO outgoing_documents (document_id, counterparty_id, document_type, file_name, body, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [documentId, locked.fromCustodian, CUSTODIAN_SWITCH_ORDER, `custodian-switch-${switchId}.${CUSTODIAN_SWITCH_ORDER}.xml`, body, now],
    );
    // A new account named at registration is the receiving custodian's from the order on: its first Holdings confirm the switch.
    if (locked.toAccount !== null) await openNewAccount(tx, locked.toAccount, locked.toCustodian, stockholmDate(now));
    await stepSwitch(tx, switchId, 'requested', 'ordered', { ordered_at: now, order_document_id: documentId });
    await addSwitchEvent(tx, switchId, 'ordered', now, 'custodian-switch', `${CUSTODIAN_SWITCH_ORDER} ${documentId} to ${locked.fromCustodian}`);
    return [documentId];
  };
}

/** Staff give up an open switch: closed with the reason, and its sign case with it. Nothing is sent. */
export async function closeCustodianSwitch(db: Database, switchId: string, reason: string, by: string, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const insuranceNumber = await switchInsurance(tx, switchId);
    if (insuranceNumber === undefined) return false;
    await lockSwitchInsurance(tx, insuranceNumber);
    const locked = await lockSwitch(tx, switchId);
    if (!locked || !['requested', 'ordered', 'confirmed'].includes(locked.status)) return false;
    await stepSwitch(tx, switchId, locked.status, 'closed', { closed_at: now });
    await addSwitchEvent(tx, switchId, 'closed', now, by, reason);
    await closeSignCase(tx, { kind: 'custodian-switch', id: switchId }, reason, now);
    return true;
  });
}

/** Who signs: the policyholder (and the insured), or an organisation's company signatories in force (and the insured), as for a withdrawal. */
async function signingOf(tx: Sql, policyholder: string, insured: string, today: IsoDate): Promise<{ signatories: Signatory[]; required: number | null } | { problem: SwitchProblem }> {
  const personal = signatoriesOf(policyholder, insured);
  if (personal) return { signatories: personal, required: null };
  const register = await companySigningRegister(tx, policyholder);
  const company = companySigningOf({ organisationNumber: policyholder, insured, inForce: inForceOn(register.signatories, today), required: register.requiredSignatures ?? undefined });
  if (!company.ok) return { problem: { code: 'CUSTODIAN_SWITCH_NOT_ALLOWED', message: company.message } };
  return { signatories: company.signatories, required: company.required };
}
