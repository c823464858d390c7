import { switchWaitReason } from '../core/custodian-switch.rules.ts';
import type { HeldAccount } from '../core/debit-run.ts';
import { openSwitchesOf, recordSwitchWait } from '../ledger/custody/custodian-switches.repository.ts';
import type { Sql } from '../ledger/database.ts';

/**
 * What the debit and payout runs do with an insurance whose custodian is being switched:
 * nothing is ordered at either custodian. Its line waits, held with the reason
 * (core/custodian-switch.rules.ts), and the wait is recorded on the switch
 * (`custodian_switch_waits`, once per switch and run) so that, once the switch has
 * completed, the custodian-switches job orders it at the receiving custodian under a
 * run key of its own (`<run key>-<switch id>`: custodian-switches.job.ts).
 */
export interface SwitchingRow {
  readonly insuranceNumber: string;
  readonly accountNumber: string;
  readonly custodianId: string;
}

export interface SwitchingSplit<Row> {
  /** The rows the run orders. */
  readonly rows: Row[];
  /** The rows that wait for their switch, as held accounts of their (releasing) custodian. */
  readonly waiting: readonly (HeldAccount & { readonly custodianId: string })[];
}

export async function withoutSwitching<Row extends SwitchingRow>(
  sql: Sql, rows: readonly Row[], run: { runKey: string; kind: 'debit' | 'payout'; now: Date; dryRun: boolean },
): Promise<SwitchingSplit<Row>> {
  const open = await openSwitchesOf(sql, rows.map((row) => row.insuranceNumber));
  if (open.size === 0) return { rows: [...rows], waiting: [] };
  const waiting: (HeldAccount & { custodianId: string })[] = [];
  for (const row of rows) {
    const found = open.get(row.insuranceNumber);
    if (!found) continue;
    const reason = switchWaitReason(found);
    waiting.push({ accountNumber: row.accountNumber, insuranceNumber: row.insuranceNumber, custodianId: row.custodianId, reason });
    if (!run.dryRun) await recordSwitchWait(sql, { switchId: found.switchId, runKey: run.runKey, kind: run.kind, reason, at: run.now });
  }
  return { rows: rows.filter((row) => !open.has(row.insuranceNumber)), waiting };
}

/** The held accounts of one custodian among the waiting ones, without the custodian. */
export function waitingAt(waiting: SwitchingSplit<SwitchingRow>['waiting'], custodianId: string): HeldAccount[] {
  return waiting.filter((wait) => wait.custodianId === custodianId).map(({ accountNumber, insuranceNumber, reason }) => ({ accountNumber, insuranceNumber, reason }));
}
