import { ulid } from 'ulid';
import { parseBankAccount, type BankAccount } from '../core/bank-account.ts';
import { stockholmDate, type IsoDate } from '../core/calendar-date.ts';
import { companySigningOf, inForceOn } from '../core/company-signatories.rules.ts';
import type { YieldTaxRateTable } from '../core/charges/yield-tax-rates.ts';
import { GatewayError } from '../core/gateway-error.ts';
import { withdrawalBounds } from '../core/withdrawal-information.rules.ts';
import { requestProblems, signatoriesOf, withdrawalSignText, type RequestProblem, type Signatory } from '../core/withdrawal-request.rules.ts';
import { companySigningRegister } from '../ledger/advice/company-signatories.repository.ts';
import { openSwitchOf } from '../ledger/custody/custodian-switches.repository.ts';
import type { Database, Sql } from '../ledger/database.ts';
import type { AccessGate } from '../ledger/advice/powers-of-attorney.repository.ts';
import { isValidatedAccount } from '../ledger/advice/withdrawal-accounts.repository.ts';
import { withdrawalFactsOf } from '../ledger/advice/withdrawal-information.repository.ts';
import { insertSignCase } from '../ledger/advice/sign-cases.repository.ts';
import { insertWithdrawalRequest, lockInsuranceForRequest } from '../ledger/advice/withdrawal-requests.repository.ts';

/**
 * Making a withdrawal request, wherever it comes from: a client of the REST API
 * (POST /Insurance/withdrawalrequest), or the insurer's staff registering one received
 * through the insurer's e-service or on a paper form (staff API, `depot-gateway
 * withdrawals register`). Every request is held to the same rules and gets the same
 * sign case.
 *
 * Invariants:
 * - checked and saved in one transaction holding the insurance's row, so two requests
 *   at once cannot both take what is left;
 * - a refused request saves nothing, and every problem is reported at once.
 */
export interface NewRequestInput {
  readonly insuranceNumber: string;
  readonly amount: string;
  readonly account: BankAccount;
  /** Who made it, kept in the request's history: `client:<id>`, or the staff user. */
  readonly requestedBy: string;
  /** How it came, kept with the `requested` event (staff registrations: the channel and the form's reference). */
  readonly note?: string;
  readonly now: Date;
  readonly yieldTaxRates?: YieldTaxRateTable | undefined;
}

export type NewRequestOutcome =
  | { readonly made: true; readonly requestId: string }
  | { readonly made: false; readonly problems: readonly RequestProblem[] }
  /** No such insurance, or `mayAct` said the maker may not act on it. */
  | { readonly made: false; readonly notFound: true };

/**
 * `mayAct`, when given, is the maker's access (a REST client's): the insurance is looked
 * up together with its policyholder's access facts, in the request's transaction, and
 * one the maker may not act on is answered as one that does not exist.
 */
export async function makeWithdrawalRequest(db: Database, input: NewRequestInput, mayAct?: AccessGate): Promise<NewRequestOutcome> {
  const { now, account } = input;
  const today = stockholmDate(now);
  return db.transaction(async (tx): Promise<NewRequestOutcome> => {
    await lockInsuranceForRequest(tx, input.insuranceNumber);
    const [insurance] = await withdrawalFactsOf(tx, { insuranceNumber: input.insuranceNumber }, today, mayAct);
    if (!insurance) return { made: false, notFound: true };
    const switching = await openSwitchOf(tx, insurance.insuranceNumber);
    if (switching) {
      return { made: false, problems: [{ path: '$.insuranceNumber', code: 'WITHDRAWAL_DURING_CUSTODIAN_SWITCH', message: `The insurance's custodian is being switched (${switching.switchId}); no withdrawal until the switch completes.` }] };
    }
    const problems = requestProblems({
      bounds: withdrawalBounds(insurance, today, input.yieldTaxRates), amount: input.amount,
      accountValidated: await isValidatedAccount(tx, insurance.policyholder, account.digits), accountDigits: account.digits,
    });
    const insured = await tx.query<{ insured: string }>('SELECT insured_pin AS insured FROM insurances WHERE insurance_number = $1', [insurance.insuranceNumber]);
    const signing = await signingOf(tx, insurance.policyholder, insured.rows[0]!.insured, today);
    if (!signing.ok) problems.unshift({ path: '$.insuranceNumber', code: 'WITHDRAWAL_NOT_ALLOWED', message: signing.message });
    if (problems.length > 0 || !signing.ok) return { made: false, problems };
    const stamp = ulid(now.getTime());
    const requestId = `WR-${stamp}`;
    await insertWithdrawalRequest(tx, {
      requestId, insuranceNumber: insurance.insuranceNumber, customerId: insurance.policyholder, amount: input.amount,
      account, requestedAt: now, requestedBy: input.requestedBy, ...(input.note ? { note: input.note } : {}),
    });
    await insertSignCase(tx, {
      signCaseId: `SC-${stamp}`, subject: { kind: 'withdrawal', id: requestId }, customerId: insurance.policyholder, custodianId: insurance.custodianId,
      visibleText: withdrawalSignText({ insuranceNumber: insurance.insuranceNumber, amount: input.amount, account }),
      signatories: signing.signatories, companySignaturesRequired: signing.required, createdAt: now,
    });
    return { made: true, requestId };
  });
}

/** Who signs: the policyholder (and the insured), or an organisation's company signatories in force (and the insured). */
async function signingOf(tx: Sql, policyholder: string, insured: string, today: IsoDate): Promise<{ ok: true; signatories: Signatory[]; required: number | null } | { ok: false; message: string }> {
  const personal = signatoriesOf(policyholder, insured);
  if (personal) return { ok: true, signatories: personal, required: null };
  const register = await companySigningRegister(tx, policyholder);
  return companySigningOf({ organisationNumber: policyholder, insured, inForce: inForceOn(register.signatories, today), required: register.requiredSignatures ?? undefined });
}

/** How a request registered by staff reached the insurer. */
export const STAFF_REQUEST_CHANNELS = ['e-service', 'paper-form'] as const;
export type StaffRequestChannel = (typeof STAFF_REQUEST_CHANNELS)[number];

export interface StaffRequestInput {
  readonly insuranceNumber: string;
  readonly amount: string;
  /** Clearing number and account number, digits only, as for the REST API. */
  readonly accountNumber: string;
  readonly channel: StaffRequestChannel;
  /** The e-service case or the paper form's reference, kept in the history with the channel. */
  readonly reference: string;
  /** The staff user (`staff:<name>`) or `cli:<account>`. */
  readonly by: string;
  readonly now: Date;
  readonly yieldTaxRates?: YieldTaxRateTable | undefined;
}

/**
 * A request registered by staff on the policyholder's behalf: the same rules and sign
 * case as one made through the REST API; its `requested` event names the staff user,
 * the channel and the reference (the audit). Refused with the first problem's code and
 * every problem in the message; RESOURCE_NOT_FOUND when there is no such insurance.
 */
export async function registerRequestForCustomer(db: Database, input: StaffRequestInput): Promise<string> {
  const problem = staffInputProblem(input);
  if (problem) throw new GatewayError('REQUEST_INVALID', problem);
  const reading = parseBankAccount(input.accountNumber);
  if (!reading.ok) throw new GatewayError('BANK_ACCOUNT_INVALID', reading.problem);
  const outcome = await makeWithdrawalRequest(db, {
    insuranceNumber: input.insuranceNumber, amount: input.amount, account: reading.account, requestedBy: input.by,
    note: `${input.channel}: ${input.reference.trim()}`, now: input.now, yieldTaxRates: input.yieldTaxRates,
  });
  if (outcome.made) return outcome.requestId;
  if ('notFound' in outcome) throw new GatewayError('RESOURCE_NOT_FOUND', `No insurance ${input.insuranceNumber}.`);
  throw new GatewayError(outcome.problems[0]!.code, outcome.problems.map((p) => `${p.path}: ${p.message}`).join(' '));
}

function staffInputProblem(input: StaffRequestInput): string | undefined {
  if (!STAFF_REQUEST_CHANNELS.includes(input.channel)) return `channel is one of ${STAFF_REQUEST_CHANNELS.join(', ')}.`;
  if (input.reference.trim() === '') return 'Give the reference of the e-service case or the paper form.';
  if (!/^\d{1,12}(\.\d{1,2})?$/.test(input.amount)) return 'amount is SEK as a decimal string, such as "12500.00".';
  if (input.insuranceNumber.trim() === '') return 'Give the insurance number.';
  return undefined;
}
