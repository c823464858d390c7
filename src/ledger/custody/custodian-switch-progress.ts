import { stockholmDate } from '../../core/calendar-date.ts';
import { moveComplete } from '../../core/custodian-switch.rules.ts';
import type { Sql } from '../database.ts';
import {
  addSwitchEvent, arrivedValue, changeCustody, lockSwitch, lockSwitchInsurance, noteSwitch, openSwitchesTouching, stepSwitch, switchInsurance, transferOutReported,
} from './custodian-switches.repository.ts';

/**
 * How custodians' reports move an open custodian switch on, in the transaction that
 * loads the report (src/messages/custodian-reporting/report-ingestion.ts): the receiving
 * custodian's first Holdings of the new account named at registration confirms it; the
 * releasing custodian's TransferOut from the old account and the receiving one's value
 * in the new account are the two halves of the move; once both are seen on a confirmed
 * switch it completes — the insurance's custody account and custodian change, with
 * their history row (insurance_custody_changes).
 *
 * Each step is taken under the insurance's and the switch's row locks, guarded by the
 * status it leaves, so a report applied again (or two reports at once) takes it once.
 */
export interface ReportCause {
  readonly messageId: string;
  /** The custodian whose report it is. */
  readonly custodianId: string;
  readonly at: Date;
}

/** Moves on every open switch whose old or new account the report loaded. Returns the switches completed. */
export async function advanceCustodianSwitches(tx: Sql, accounts: readonly string[], cause: ReportCause): Promise<string[]> {
  if (accounts.length === 0) return [];
  const completed: string[] = [];
  for (const switchId of await openSwitchesTouching(tx, accounts)) {
    if (await advanceSwitch(tx, switchId, cause)) completed.push(switchId);
  }
  return completed;
}

/** Looks at one switch against the ledger's reports; true when it completed now. */
export async function advanceSwitch(tx: Sql, switchId: string, cause: ReportCause): Promise<boolean> {
  const insuranceNumber = await switchInsurance(tx, switchId);
  if (insuranceNumber === undefined) return false;
  await lockSwitchInsurance(tx, insuranceNumber);
  let locked = await lockSwitch(tx, switchId);
  if (!locked || (locked.status !== 'ordered' && locked.status !== 'confirmed') || locked.toAccount === null || locked.orderedAt === null) return false;
  const by = cause.custodianId;
  const value = await arrivedValue(tx, locked.toAccount);
  if (locked.status === 'ordered' && value !== undefined && cause.custodianId === locked.toCustodian) {
    await stepSwitch(tx, switchId, 'ordered', 'confirmed', { confirmed_at: cause.at });
    await addSwitchEvent(tx, switchId, 'confirmed', cause.at, by, `Holdings of the new account ${locked.toAccount}`, cause.messageId);
  }
  if (!locked.transferredOut && await transferOutReported(tx, locked.fromAccount, stockholmDate(locked.orderedAt))) {
    await noteSwitch(tx, switchId, { transferred_out_at: cause.at });
    await addSwitchEvent(tx, switchId, 'transferred-out', cause.at, by, `TransferOut from ${locked.fromAccount}`, cause.messageId);
  }
  if (!locked.valueArrived && value !== undefined) {
    await noteSwitch(tx, switchId, { value_arrived_at: cause.at, moved_value: value });
    await addSwitchEvent(tx, switchId, 'value-arrived', cause.at, by, `${value} SEK in ${locked.toAccount}`, cause.messageId);
  }
  locked = (await lockSwitch(tx, switchId))!;
  if (!moveComplete(locked) || locked.toAccount === null) return false;
  const effectiveDate = stockholmDate(cause.at);
  await addSwitchEvent(tx, switchId, 'moved', cause.at, by, `from ${locked.fromCustodian} ${locked.fromAccount} to ${locked.toCustodian} ${locked.toAccount}`, cause.messageId);
  await changeCustody(tx, {
    switchId, insuranceNumber, fromAccount: locked.fromAccount, fromCustodian: locked.fromCustodian, toAccount: locked.toAccount, toCustodian: locked.toCustodian,
    effectiveDate, at: cause.at,
  });
  await stepSwitch(tx, switchId, 'confirmed', 'completed', { completed_at: cause.at });
  await addSwitchEvent(tx, switchId, 'completed', cause.at, 'custodian-switch', `${insuranceNumber} held in ${locked.toAccount} at ${locked.toCustodian} from ${effectiveDate}`, cause.messageId);
  return true;
}
