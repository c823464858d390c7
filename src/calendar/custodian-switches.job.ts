import type { Logger } from 'pino';
import type { MailSender } from '../channels/mail/mail-sender.ts';
import { stockholmDate } from '../core/calendar-date.ts';
import { switchStalled } from '../core/custodian-switch.rules.ts';
import { parseDebitRunKey } from '../core/debit-run.ts';
import { requireYearMonth } from '../core/payout-plan.ts';
import { addSwitchEvent, listSwitches, markWaitOrdered, noteSwitch, type SwitchRecord } from '../ledger/custody/custodian-switches.repository.ts';
import type { Sql } from '../ledger/database.ts';
import type { CalendarJob } from './calendar.scheduler.ts';
import { handOverRunDocuments, runDebitRun, type RunDeps } from './debit-run.ts';
import { runPayoutRun } from './payout-run.ts';

/**
 * The custodian switches' daily work (07:00 Stockholm on weekdays, caught up at start):
 * - the lines that debit and payout runs left waiting for a switch (custodian-switch-runs.ts)
 *   are ordered, once the switch has completed, at the receiving custodian: the run made
 *   for that insurance alone under the run key `<run key>-<switch id>`, so it never meets
 *   the receiving custodian's own file of that run, and the wait records the key it was
 *   ordered under (ordered once: a repeat finds it ordered, and the run key's row);
 * - an open switch with no step for more than `stallBankingDays` banking days is flagged
 *   (a `stalled` event, shown on the console overview) and the operations address is
 *   mailed one notice listing every switch newly stalled — a switch is mailed once per
 *   stall, again only after a later step stalls anew.
 */
export const CUSTODIAN_SWITCH_JOB = 'custodian-switches';
export const CUSTODIAN_SWITCH_PATTERNS = ['0 7 * * 1-5'] as const;
export const DEFAULT_STALL_BANKING_DAYS = 10;

export interface CustodianSwitchJobDeps {
  readonly runs: RunDeps;
  readonly mailSender: MailSender | undefined;
  readonly operationsAddress: string | undefined;
  readonly stallBankingDays: number;
  readonly log: Logger;
}

export function custodianSwitchJob(deps: CustodianSwitchJobDeps): CalendarJob {
  return {
    name: CUSTODIAN_SWITCH_JOB,
    patterns: CUSTODIAN_SWITCH_PATTERNS,
    duePeriods: (now) => [stockholmDate(now)],
    async run({ sql, firedAt, afterCommit }) {
      const documents = await orderWaitingLines(sql, deps.runs, firedAt);
      afterCommit(() => handOverRunDocuments(deps.runs, documents));
      await flagStalledSwitches(sql, deps, firedAt);
    },
  };
}

/** Orders the waiting lines of every completed switch, in the caller's transaction; answers the documents to hand to delivery after commit. */
export async function orderWaitingLines(sql: Sql, runs: RunDeps, now: Date): Promise<string[]> {
  const { rows } = await sql.query<{ switchId: string; insuranceNumber: string; runKey: string; kind: 'debit' | 'payout' }>(
    `SELECT w.switch_id AS "switchId", s.insurance_number AS "insuranceNumber", w.run_key AS "runKey", w.kind
       FROM custodian_switch_waits w JOIN custodian_switches s ON s.switch_id = w.switch_id
      WHERE s.status = 'completed' AND w.ordered_run_key IS NULL ORDER BY w.waited_at, w.run_key FOR UPDATE OF w`,
  );
  const documents: string[] = [];
  for (const wait of rows) {
    const caughtUp = { insuranceNumber: wait.insuranceNumber, switchId: wait.switchId };
    const covered = parseDebitRunKey(wait.runKey);
    const summary = wait.kind === 'debit' && covered
      ? await runDebitRun(sql, runs, covered, now, { caughtUp })
      : await runPayoutRun(sql, runs, requireMonth(wait.runKey), now, { caughtUp });
    await markWaitOrdered(sql, wait.switchId, wait.runKey, summary.runKey);
    await addSwitchEvent(sql, wait.switchId, 'ordered', now, 'custodian-switch', `${wait.kind} run ${wait.runKey}: lines that waited, ordered as ${summary.runKey}`);
    documents.push(...summary.undelivered);
    runs.log.info({ switchId: wait.switchId, runKey: wait.runKey, orderedAs: summary.runKey }, 'custodian switch: waiting lines ordered at the new custodian');
  }
  return [...new Set(documents)];
}

function requireMonth(runKey: string): string {
  requireYearMonth(runKey);
  return runKey;
}

/** Flags the open switches stalled past the setting and mails operations about the new ones. Answers them. */
export async function flagStalledSwitches(sql: Sql, deps: Omit<CustodianSwitchJobDeps, 'runs'>, now: Date): Promise<SwitchRecord[]> {
  const today = stockholmDate(now);
  const stalled = (await listSwitches(sql, { open: true, limit: 1000 })).filter((s) =>
    switchStalled({ status: s.status, since: stockholmDate(new Date(s.lastStepAt)), today, bankingDays: deps.stallBankingDays })
    && (s.stalledNoticedAt === null || s.stalledNoticedAt < s.lastStepAt));
  for (const found of stalled) {
    await noteSwitch(sql, found.switchId, { stalled_noticed_at: now });
    await addSwitchEvent(sql, found.switchId, 'stalled', now, 'custodian-switch', `no step for more than ${deps.stallBankingDays} banking days (${found.status} since ${found.lastStepAt})`);
  }
  if (stalled.length === 0) return stalled;
  if (!deps.mailSender || !deps.operationsAddress) {
    deps.log.warn({ switches: stalled.map((s) => s.switchId) }, 'custodian switches stalled, but no mail.smtp or notifications.operationsAddress to tell anyone; see the console overview');
    return stalled;
  }
  await deps.mailSender.send({
    to: deps.operationsAddress,
    subject: `Custodian switches stalled: ${stalled.length}`,
    text: [
      `These custodian switches have taken no step for more than ${deps.stallBankingDays} banking days:`, '',
      ...stalled.map((s) => `${s.switchId}  ${s.insuranceNumber}  ${s.fromCustodian} → ${s.toCustodian}  ${s.status} since ${s.lastStepAt}`),
      '', 'See `depot-gateway custodian-switches list --open` or the console overview.',
    ].join('\n'),
    messageId: `<custodian-switches-stalled.${today}.${stalled.map((s) => s.switchId).join('.')}@depot-gateway>`,
  });
  return stalled;
}
