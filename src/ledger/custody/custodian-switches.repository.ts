import type { Sql } from '../database.ts';
import { accessFactsOf, customerAccessColumns, withoutAccessColumns, type AccessGate, type CustomerAccessRow } from '../advice/powers-of-attorney.repository.ts';
import { isFullySigned } from '../../core/company-signatories.rules.ts';
import type { SwitchStatus } from '../../core/custodian-switch.rules.ts';
import type { SignatoryRole } from '../../core/withdrawal-request.rules.ts';

/**
 * Custodian switches (migration 0047): made with their sign case in one transaction,
 * each step a row update guarded by the status it leaves (so a step is taken once) and
 * an event in the history, in the transaction of the document or signature that caused
 * it. The insurance's account and custodian change only at completion, with a row in
 * `insurance_custody_changes`. A switch is the policyholder's: access to it is decided
 * on the policyholder's facts, read in the statement that finds it.
 */
export type SwitchEvent = 'requested' | 'signed' | 'ordered' | 'confirmed' | 'transferred-out' | 'value-arrived' | 'moved' | 'completed' | 'closed' | 'stalled' | 'refused';

export interface SwitchEventRecord {
  readonly event: SwitchEvent;
  readonly at: string;
  readonly by: string;
  readonly reason: string | null;
}

/** What registering a switch needs of the insurance, read under its row lock. */
export interface SwitchInsuranceFacts {
  readonly insuranceNumber: string;
  readonly policyholder: string;
  readonly insuredPin: string;
  readonly accountNumber: string;
  readonly custodianId: string;
  readonly ended: boolean;
}

export async function lockSwitchInsurance(tx: Sql, insuranceNumber: string): Promise<void> {
  await tx.query('SELECT 1 FROM insurances WHERE insurance_number = $1 FOR UPDATE', [insuranceNumber]);
}

/** The insurance, or undefined when there is none or `mayAct` says the caller may not act for its policyholder. */
export async function switchInsuranceFacts(sql: Sql, insuranceNumber: string, mayAct?: AccessGate): Promise<SwitchInsuranceFacts | undefined> {
  const { rows } = await sql.query<SwitchInsuranceFacts & Partial<CustomerAccessRow>>(
    `SELECT i.insurance_number AS "insuranceNumber", COALESCE(i.policyholder, i.insured_pin) AS policyholder, i.insured_pin AS "insuredPin",
            i.custody_account AS "accountNumber", a.custodian_id AS "custodianId", (i.end_date IS NOT NULL) AS ended
            ${mayAct ? `, ${customerAccessColumns('COALESCE(i.policyholder, i.insured_pin)')}` : ''}
       FROM insurances i JOIN custody_accounts a ON a.account_number = i.custody_account WHERE i.insurance_number = $1`, [insuranceNumber],
  );
  const row = rows[0];
  if (!row || (mayAct && !mayAct(accessFactsOf(row as CustomerAccessRow), row.custodianId))) return undefined;
  return withoutAccessColumns(row);
}

export async function accountInLedger(sql: Sql, accountNumber: string): Promise<boolean> {
  const { rows } = await sql.query('SELECT 1 FROM custody_accounts WHERE account_number = $1', [accountNumber]);
  return rows.length > 0;
}

export async function nextSwitchId(tx: Sql): Promise<string> {
  const { rows } = await tx.query<{ n: string }>(`SELECT nextval('custodian_switch_seq')::text AS n`);
  return `CS-${rows[0]!.n.padStart(6, '0')}`;
}

export interface NewSwitch {
  readonly switchId: string;
  readonly insurance: SwitchInsuranceFacts;
  readonly toCustodian: string;
  readonly toAccount: string | undefined;
  readonly requestedAt: Date;
  readonly requestedBy: string;
  readonly note: string | undefined;
}

export async function insertSwitch(tx: Sql, input: NewSwitch): Promise<void> {
  const { insurance } = input;
  await tx.query(
    `INSERT INTO custodian_switches (switch_id, insurance_number, policyholder, from_custodian, from_account, to_custodian, to_account, requested_at, requested_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [input.switchId, insurance.insuranceNumber, insurance.policyholder, insurance.custodianId, insurance.accountNumber, input.toCustodian,
      input.toAccount ?? null, input.requestedAt, input.requestedBy],
  );
  await addSwitchEvent(tx, input.switchId, 'requested', input.requestedAt, input.requestedBy, input.note ?? null);
}

export async function addSwitchEvent(tx: Sql, switchId: string, event: SwitchEvent, at: Date, by: string, reason: string | null, messageId?: string): Promise<void> {
  await tx.query('INSERT INTO custodian_switch_events (switch_id, event, recorded_at, by, reason, message_id) VALUES ($1, $2, $3, $4, $5, $6)',
    [switchId, event, at, by, reason, messageId ?? null]);
}

export interface SwitchRecord {
  readonly switchId: string;
  readonly signCaseId: string | null;
  readonly insuranceNumber: string;
  readonly policyholder: string;
  readonly fromCustodian: string;
  readonly fromAccount: string;
  readonly toCustodian: string;
  readonly toAccount: string | null;
  readonly status: SwitchStatus;
  readonly requestedAt: string;
  readonly requestedBy: string;
  readonly orderDocumentId: string | null;
  readonly transferredOut: boolean;
  readonly valueArrived: boolean;
  readonly movedValue: string | null;
  /** When its last step was taken: what a stall is counted from. */
  readonly lastStepAt: string;
  readonly stalledNoticedAt: string | null;
  readonly history: readonly SwitchEventRecord[];
  readonly waits: readonly { readonly runKey: string; readonly kind: 'debit' | 'payout'; readonly reason: string; readonly orderedRunKey: string | null }[];
}

const COLUMNS = `s.switch_id AS "switchId", (SELECT c.sign_case_id FROM sign_cases c WHERE c.subject_kind = 'custodian-switch' AND c.subject_id = s.switch_id) AS "signCaseId",
  s.insurance_number AS "insuranceNumber", s.policyholder, s.from_custodian AS "fromCustodian", s.from_account AS "fromAccount",
  s.to_custodian AS "toCustodian", s.to_account AS "toAccount", s.status, s.requested_at AS "requestedAt", s.requested_by AS "requestedBy",
  s.order_document_id AS "orderDocumentId", (s.transferred_out_at IS NOT NULL) AS "transferredOut", (s.value_arrived_at IS NOT NULL) AS "valueArrived",
  s.moved_value::text AS "movedValue", GREATEST(s.requested_at, s.ordered_at, s.confirmed_at, s.transferred_out_at, s.value_arrived_at) AS "lastStepAt",
  s.stalled_noticed_at AS "stalledNoticedAt"`;

type Row = Omit<SwitchRecord, 'history' | 'waits' | 'requestedAt' | 'lastStepAt' | 'stalledNoticedAt'> & { requestedAt: Date | string; lastStepAt: Date | string; stalledNoticedAt: Date | string | null };

/** A switch with its history; undefined when there is none, or `mayReach` (asked in the statement that finds it) says no. */
export async function findSwitch(sql: Sql, switchId: string, mayReach?: AccessGate): Promise<SwitchRecord | undefined> {
  const { rows } = await sql.query<Row & Partial<CustomerAccessRow>>(
    `SELECT ${COLUMNS}${mayReach ? `, ${customerAccessColumns('s.policyholder')}` : ''} FROM custodian_switches s WHERE s.switch_id = $1`, [switchId],
  );
  const row = rows[0];
  if (!row || (mayReach && !mayReach(accessFactsOf(row as CustomerAccessRow), row.fromCustodian))) return undefined;
  return withHistory(sql, withoutAccessColumns(row));
}

/** Switches newest first, optionally of one insurance or only the open ones. */
export async function listSwitches(sql: Sql, filter: { insuranceNumber?: string; open?: boolean; limit?: number } = {}): Promise<SwitchRecord[]> {
  const { rows } = await sql.query<Row>(
    `SELECT ${COLUMNS} FROM custodian_switches s
      WHERE ($1::text IS NULL OR s.insurance_number = $1) AND ($2::boolean IS NULL OR s.switch_open = $2)
      ORDER BY s.requested_at DESC, s.switch_id DESC LIMIT $3`,
    [filter.insuranceNumber ?? null, filter.open ?? null, filter.limit ?? 100],
  );
  return Promise.all(rows.map((row) => withHistory(sql, row)));
}

async function withHistory(sql: Sql, row: Row): Promise<SwitchRecord> {
  const events = await sql.query<SwitchEventRecord & { at: Date | string }>(
    'SELECT event, recorded_at AS at, by, reason FROM custodian_switch_events WHERE switch_id = $1 ORDER BY id', [row.switchId],
  );
  const waits = await sql.query<SwitchRecord['waits'][number]>(
    `SELECT run_key AS "runKey", kind, reason, ordered_run_key AS "orderedRunKey" FROM custodian_switch_waits WHERE switch_id = $1 ORDER BY waited_at, run_key`, [row.switchId],
  );
  return {
    ...row, requestedAt: iso(row.requestedAt), lastStepAt: iso(row.lastStepAt), stalledNoticedAt: row.stalledNoticedAt === null ? null : iso(row.stalledNoticedAt),
    history: events.rows.map((event) => ({ ...event, at: iso(event.at) })), waits: waits.rows,
  };
}

/** The open switch of an insurance, locked, when it has one. */
export async function openSwitchOf(tx: Sql, insuranceNumber: string): Promise<{ switchId: string; status: SwitchStatus } | undefined> {
  const { rows } = await tx.query<{ switchId: string; status: SwitchStatus }>(
    `SELECT switch_id AS "switchId", status FROM custodian_switches WHERE insurance_number = $1 AND switch_open FOR UPDATE`, [insuranceNumber],
  );
  return rows[0];
}

/** The open switch of each insurance that has one, for the runs (unlocked: the run holds its own lock). */
export async function openSwitchesOf(sql: Sql, insuranceNumbers: readonly string[]): Promise<Map<string, { switchId: string; fromCustodian: string; toCustodian: string }>> {
  const { rows } = await sql.query<{ insuranceNumber: string; switchId: string; fromCustodian: string; toCustodian: string }>(
    `SELECT insurance_number AS "insuranceNumber", switch_id AS "switchId", from_custodian AS "fromCustodian", to_custodian AS "toCustodian"
       FROM custodian_switches WHERE switch_open AND insurance_number = ANY($1::text[])`, [insuranceNumbers],
  );
  return new Map(rows.map(({ insuranceNumber, ...open }) => [insuranceNumber, open]));
}

/** Records that a run left the insurance's lines waiting for its switch; once per switch and run. */
export async function recordSwitchWait(tx: Sql, wait: { switchId: string; runKey: string; kind: 'debit' | 'payout'; reason: string; at: Date }): Promise<void> {
  await tx.query(
    `INSERT INTO custodian_switch_waits (switch_id, run_key, kind, reason, waited_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (switch_id, run_key) DO NOTHING`,
    [wait.switchId, wait.runKey, wait.kind, wait.reason, wait.at],
  );
}

export async function markWaitOrdered(tx: Sql, switchId: string, runKey: string, orderedRunKey: string): Promise<void> {
  await tx.query('UPDATE custodian_switch_waits SET ordered_run_key = $3 WHERE switch_id = $1 AND run_key = $2', [switchId, runKey, orderedRunKey]);
}

/** What a step needs of a switch, read under its row lock. */
export interface LockedSwitch {
  readonly switchId: string;
  readonly insuranceNumber: string;
  readonly status: SwitchStatus;
  readonly fromCustodian: string;
  readonly fromAccount: string;
  readonly toCustodian: string;
  readonly toAccount: string | null;
  readonly orderedAt: Date | null;
  readonly transferredOut: boolean;
  readonly valueArrived: boolean;
  readonly fullySigned: boolean;
}

export async function lockSwitch(tx: Sql, switchId: string): Promise<LockedSwitch | undefined> {
  const { rows } = await tx.query<Omit<LockedSwitch, 'fullySigned'>>(
    `SELECT switch_id AS "switchId", insurance_number AS "insuranceNumber", status, from_custodian AS "fromCustodian", from_account AS "fromAccount",
            to_custodian AS "toCustodian", to_account AS "toAccount", ordered_at AS "orderedAt",
            (transferred_out_at IS NOT NULL) AS "transferredOut", (value_arrived_at IS NOT NULL) AS "valueArrived"
       FROM custodian_switches WHERE switch_id = $1 FOR UPDATE`, [switchId],
  );
  const row = rows[0];
  if (!row) return undefined;
  const signatures = await tx.query<{ role: SignatoryRole; signedAt: Date | null; required: number | null }>(
    `SELECT s.role, s.signed_at AS "signedAt", c.company_signatures_required AS required
       FROM sign_cases c JOIN sign_case_signatories s ON s.sign_case_id = c.sign_case_id WHERE c.subject_kind = 'custodian-switch' AND c.subject_id = $1`, [switchId],
  );
  return { ...row, fullySigned: isFullySigned(signatures.rows, signatures.rows[0]?.required ?? null) };
}

export async function switchInsurance(sql: Sql, switchId: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ insuranceNumber: string }>('SELECT insurance_number AS "insuranceNumber" FROM custodian_switches WHERE switch_id = $1', [switchId]);
  return rows[0]?.insuranceNumber;
}

/** Moves a switch from one status to the next, with the columns of that step; false when it was not in `from`. */
export async function stepSwitch(tx: Sql, switchId: string, from: SwitchStatus, to: SwitchStatus, set: Record<string, unknown> = {}): Promise<boolean> {
  const names = Object.keys(set);
  const assignments = names.map((name, index) => `, ${name} = $${index + 4}`).join('');
  const { rows } = await tx.query(
    `UPDATE custodian_switches SET status = $3${assignments} WHERE switch_id = $1 AND status = $2 RETURNING switch_id`,
    [switchId, from, to, ...names.map((name) => set[name])],
  );
  return rows.length > 0;
}

/** Sets columns of a switch without changing its status (the halves of the move, a stall noticed). */
export async function noteSwitch(tx: Sql, switchId: string, set: Record<string, unknown>): Promise<void> {
  const names = Object.keys(set);
  await tx.query(`UPDATE custodian_switches SET ${names.map((name, index) => `${name} = $${index + 2}`).join(', ')} WHERE switch_id = $1`,
    [switchId, ...names.map((name) => set[name])]);
}

/** Registers the receiving custodian's new account in the ledger (so its reports are taken). */
export async function openNewAccount(tx: Sql, accountNumber: string, custodianId: string, openedOn: string): Promise<void> {
  await tx.query('INSERT INTO custody_accounts (account_number, custodian_id, opened_on) VALUES ($1, $2, $3) ON CONFLICT (account_number) DO NOTHING',
    [accountNumber, custodianId, openedOn]);
}

/** Open switches whose old or new account is among `accounts`: what a custodian's report may move on. */
export async function openSwitchesTouching(tx: Sql, accounts: readonly string[]): Promise<string[]> {
  const { rows } = await tx.query<{ switchId: string }>(
    `SELECT switch_id AS "switchId" FROM custodian_switches WHERE switch_open AND status <> 'requested' AND (from_account = ANY($1::text[]) OR to_account = ANY($1::text[]))
      ORDER BY switch_id`, [accounts],
  );
  return rows.map((row) => row.switchId);
}

/** Whether the releasing custodian reported a TransferOut from the old account on or after the order day. */
export async function transferOutReported(sql: Sql, accountNumber: string, since: string): Promise<boolean> {
  const { rows } = await sql.query(`SELECT 1 FROM custody_transactions WHERE account_number = $1 AND transaction_type = 'TransferOut' AND trade_date >= $2 LIMIT 1`, [accountNumber, since]);
  return rows.length > 0;
}

/** The latest value the receiving custodian reported in the new account, when above zero. */
export async function arrivedValue(sql: Sql, accountNumber: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ value: string }>(
    `SELECT total_value::text AS value FROM custody_valuations WHERE account_number = $1 AND total_value > 0 ORDER BY as_of DESC LIMIT 1`, [accountNumber],
  );
  return rows[0]?.value;
}

/** Changes the insurance's custody account and custodian, with its history row; closes the old account. */
export async function changeCustody(tx: Sql, input: { switchId: string; insuranceNumber: string; fromAccount: string; fromCustodian: string; toAccount: string; toCustodian: string; effectiveDate: string; at: Date }): Promise<void> {
  await tx.query('UPDATE insurances SET custody_account = $2 WHERE insurance_number = $1', [input.insuranceNumber, input.toAccount]);
  await tx.query('UPDATE custody_accounts SET closed_on = $2 WHERE account_number = $1 AND closed_on IS NULL', [input.fromAccount, input.effectiveDate]);
  await tx.query(
    `INSERT INTO insurance_custody_changes (insurance_number, effective_date, from_account, from_custodian, to_account, to_custodian, switch_id, recorded_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [input.insuranceNumber, input.effectiveDate, input.fromAccount, input.fromCustodian, input.toAccount, input.toCustodian, input.switchId, input.at],
  );
}

/** Open switches whose last step lies before `before`, not yet noticed as stalled since that step. */
export async function openSwitchesIdleSince(sql: Sql, before: Date): Promise<SwitchRecord[]> {
  const open = await listSwitches(sql, { open: true, limit: 1000 });
  return open.filter((s) => new Date(s.lastStepAt) < before);
}

function iso(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : value;
}

/** The custodians of every switch ordered by `to` and not ended before `from`, with the days (Stockholm) they took part. */
export async function switchPartiesBetween(sql: Sql, from: string, to: string): Promise<{ custodianId: string; from: string; through: string | null }[]> {
  const { rows } = await sql.query<{ custodianId: string; from: string; through: string | null }>(
    `WITH s AS (
       SELECT from_custodian, to_custodian, (ordered_at AT TIME ZONE 'Europe/Stockholm')::date AS from_day,
              (COALESCE(completed_at, closed_at) AT TIME ZONE 'Europe/Stockholm')::date AS through_day
         FROM custodian_switches WHERE ordered_at IS NOT NULL)
     SELECT c AS "custodianId", from_day::text AS "from", through_day::text AS "through"
       FROM s CROSS JOIN LATERAL (VALUES (s.from_custodian), (s.to_custodian)) AS p(c)
      WHERE from_day <= $2::date AND (through_day IS NULL OR through_day >= $1::date)
      ORDER BY 1, 2`,
    [from, to],
  );
  return rows;
}
