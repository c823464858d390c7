import { bankingDaysBetween } from './banking-calendar.ts';
import { addDays, type IsoDate } from './calendar-date.ts';
import type { ErrorCode } from './error-codes.ts';

/**
 * The rules of switching custodian, pure: whether a switch may be registered, what a
 * receiving custodian's confirmation may do, when the assets count as moved, what a run
 * that meets a switching insurance is told, and when a switch has stalled.
 *
 * A switch goes requested → ordered (signed by all; the CustodianSwitchOrder stored for
 * the releasing custodian) → confirmed (the receiving custodian's new account known: its
 * CustodianSwitchConfirmation, or its first Holdings of an account named at
 * registration) → completed (the releasing custodian's Transactions show the transfer out
 * and the receiving one's Holdings show value in the new account: the insurance's
 * account and custodian change). Staff may close an open switch. Nothing goes back.
 *
 * Worked example: INS-200001 at demo-custodian (DEPA-100001) to north-custodian,
 * registered and signed on Monday 2 November 2026: ordered that day; north-custodian
 * confirms NC-777001 on the 4th; demo-custodian reports TransferOut on the 5th and
 * north-custodian Holdings of 250 000 SEK in NC-777001 on the 6th: completed on the 6th,
 * the insurance's account NC-777001 at north-custodian from then. The debit run of
 * 30 October ran before the switch; a payout run on the 3rd would have waited.
 */
export const SWITCH_STATUSES = ['requested', 'ordered', 'confirmed', 'completed', 'closed'] as const;
export type SwitchStatus = (typeof SWITCH_STATUSES)[number];

export const OPEN_SWITCH_STATUSES: readonly SwitchStatus[] = ['requested', 'ordered', 'confirmed'];

export function isOpenSwitch(status: SwitchStatus): boolean {
  return OPEN_SWITCH_STATUSES.includes(status);
}

export interface SwitchProblem {
  readonly code: ErrorCode;
  readonly message: string;
}

/** What registering a switch looks at: the insurance as it stands, and the custodian asked for. */
export interface SwitchRegistrationFacts {
  readonly insuranceNumber: string;
  readonly ended: boolean;
  readonly currentCustodian: string;
  readonly toCustodian: string;
  /** The configured custodian counterparties. */
  readonly custodians: ReadonlySet<string>;
  /** The insurance's open switch, when it has one. */
  readonly openSwitchId: string | undefined;
  /** A new account named at registration: whether it is already a custody account of the ledger. */
  readonly newAccountTaken?: boolean;
}

/** Every reason the switch may not be registered; empty when it may. */
export function switchRegistrationProblems(facts: SwitchRegistrationFacts): SwitchProblem[] {
  const problems: SwitchProblem[] = [];
  const { insuranceNumber } = facts;
  if (facts.ended) problems.push({ code: 'CUSTODIAN_SWITCH_NOT_ALLOWED', message: `${insuranceNumber} has ended; its custodian cannot be switched.` });
  if (facts.openSwitchId) {
    problems.push({ code: 'CUSTODIAN_SWITCH_NOT_ALLOWED', message: `${insuranceNumber} already has an open custodian switch, ${facts.openSwitchId}; it must complete or be closed first.` });
  }
  if (!facts.custodians.has(facts.toCustodian)) {
    problems.push({ code: 'CUSTODIAN_SWITCH_NOT_ALLOWED', message: `${facts.toCustodian} is not a custodian the insurer works with.` });
  } else if (facts.toCustodian === facts.currentCustodian) {
    problems.push({ code: 'CUSTODIAN_SWITCH_NOT_ALLOWED', message: `${insuranceNumber} is already held by ${facts.toCustodian}.` });
  }
  if (facts.newAccountTaken) problems.push({ code: 'CUSTODY_ACCOUNT_IN_USE', message: 'The new custody account is already an account of the ledger.' });
  return problems;
}

/** The switch as a receiving custodian's confirmation finds it. */
export interface ConfirmableSwitch {
  readonly switchId: string;
  readonly status: SwitchStatus;
  readonly toCustodian: string;
  /** The new account named at registration, when one was. */
  readonly toAccount: string | null;
}

/**
 * What one confirmation item does to the insurance's switch: `confirm` it with the new
 * account, or a rejection (an item code). `switch` is the insurance's open switch whose
 * receiving custodian is the sender (undefined: none). `accountTaken`: the account is
 * already a custody account of another insurance.
 */
export function confirmationDecision(input: {
  insuranceNumber: string; accountNumber: string; switch: ConfirmableSwitch | undefined; accountTaken: boolean;
}): { readonly confirm: true } | { readonly code: ErrorCode; readonly text: string } {
  const found = input.switch;
  if (!found) {
    return { code: 'CUSTODIAN_SWITCH_UNKNOWN', text: `${input.insuranceNumber} has no open custodian switch to you; nothing to confirm.` };
  }
  if (found.status !== 'ordered') {
    const why = found.status === 'requested' ? 'it is not yet signed and ordered' : 'its new account is confirmed already';
    return { code: 'CUSTODIAN_SWITCH_NOT_ORDERED', text: `Custodian switch ${found.switchId} cannot be confirmed: ${why}.` };
  }
  if (found.toAccount !== null && found.toAccount !== input.accountNumber) {
    return { code: 'CUSTODY_ACCOUNT_IN_USE', text: `Custodian switch ${found.switchId} names the new account ${found.toAccount}, not ${input.accountNumber}.` };
  }
  if (found.toAccount === null && input.accountTaken) {
    return { code: 'CUSTODY_ACCOUNT_IN_USE', text: `Custody account ${input.accountNumber} is already an account of the ledger; open a new account for the insurance.` };
  }
  return { confirm: true };
}

/** How far the move has come, as the two custodians' reports show it. */
export interface MoveFacts {
  readonly status: SwitchStatus;
  /** The releasing custodian's Transactions showed a TransferOut from the old account since the order. */
  readonly transferredOut: boolean;
  /** The receiving custodian's Holdings showed value in the new account. */
  readonly valueArrived: boolean;
}

/** True when the switch is to complete now: confirmed, and both halves of the move seen. */
export function moveComplete(facts: MoveFacts): boolean {
  return facts.status === 'confirmed' && facts.transferredOut && facts.valueArrived;
}

/** Why a debit or payout run leaves an insurance's lines waiting while its switch is open. */
export function switchWaitReason(input: { switchId: string; fromCustodian: string; toCustodian: string }): string {
  return `custodian switch ${input.switchId} from ${input.fromCustodian} to ${input.toCustodian} is open; ordered at ${input.toCustodian} once it completes`;
}

/**
 * Whether an open switch has stalled: more than `bankingDays` banking days after its last
 * step (`since`, a Stockholm date) up to and including `today`.
 */
export function switchStalled(input: { status: SwitchStatus; since: IsoDate; today: IsoDate; bankingDays: number }): boolean {
  if (!isOpenSwitch(input.status)) return false;
  if (input.today <= input.since) return false;
  return bankingDaysBetween(addDays(input.since, 1), input.today).length > input.bankingDays;
}

/** The text the policyholder reads in the BankID app and signs (simpleMarkdownV1). */
export function switchSignText(input: { insuranceNumber: string; fromCustodian: string; toCustodian: string }): string {
  return [
    '# Byte av depåinstitut',
    '',
    `Försäkring: ${input.insuranceNumber}`,
    `Från: ${input.fromCustodian}`,
    `Till: ${input.toCustodian}`,
    '',
    'Värdepapperen flyttas till den nya depån. Försäkringen består.',
  ].join('\n');
}

/** A custodian's part in a switch, as the report deadlines see it: from the order day through its end (completed or closed; none while open). */
export interface SwitchParty {
  readonly custodianId: string;
  readonly from: IsoDate;
  readonly through: IsoDate | null;
}

/**
 * The due days on which custodians take part in a switch, by custodian: each of the two
 * custodians owes its daily reports for every due day from the order through the switch's
 * end, whether or not it reports daily otherwise (`reports: false`). Custodians in
 * `alreadyExpected` are left out: they owe every day anyway.
 */
export function switchReportDays(parties: readonly SwitchParty[], dueDays: readonly IsoDate[], alreadyExpected: ReadonlySet<string>): Map<string, IsoDate[]> {
  const days = new Map<string, Set<IsoDate>>();
  for (const party of parties) {
    if (alreadyExpected.has(party.custodianId)) continue;
    const owed = dueDays.filter((day) => day >= party.from && (party.through === null || day <= party.through));
    if (owed.length === 0) continue;
    const set = days.get(party.custodianId) ?? new Set<IsoDate>();
    for (const day of owed) set.add(day);
    days.set(party.custodianId, set);
  }
  return new Map([...days].map(([custodianId, set]) => [custodianId, [...set].sort()]));
}
