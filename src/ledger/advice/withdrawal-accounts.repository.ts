import type { Sql } from '../database.ts';
import { accessFactsOf, customerAccessColumns, withoutAccessColumns, type AccessGate, type CustomerAccessRow } from './powers-of-attorney.repository.ts';
import type { BankAccount } from '../../core/bank-account.ts';
import type { IsoDate } from '../../core/calendar-date.ts';

/**
 * Registered withdrawal accounts (migration 0025): a registration is `pending` until
 * the 13:00 run of its validation day decides it `validated` or `refused`. A customer
 * has one live registration of an account: registering it again while pending or
 * validated finds that one.
 */
export type WithdrawalAccountStatus = 'pending' | 'validated' | 'refused';

export interface WithdrawalAccountRow {
  readonly registrationId: string;
  readonly customerId: string;
  readonly accountNumber: string;
  readonly bankName: string;
  readonly status: WithdrawalAccountStatus;
  readonly registeredAt: string;
  readonly registeredBy: string;
  readonly validationDay: IsoDate;
  readonly decidedAt: string | null;
  readonly refusalReason: string | null;
}

const COLUMNS = `registration_id AS "registrationId", customer_id AS "customerId", account_digits AS "accountNumber", bank_name AS "bankName",
  status, registered_at AS "registeredAt", registered_by AS "registeredBy", validation_day::text AS "validationDay",
  decided_at AS "decidedAt", refusal_reason AS "refusalReason"`;

export interface NewRegistration {
  readonly registrationId: string;
  readonly customerId: string;
  readonly account: BankAccount;
  readonly registeredAt: Date;
  readonly registeredBy: string;
  readonly validationDay: IsoDate;
}

/** Registers an account for a customer; `created` false when a live registration of it was there already. */
export async function registerWithdrawalAccount(sql: Sql, registration: NewRegistration): Promise<{ row: WithdrawalAccountRow; created: boolean }> {
  const { account } = registration;
  const { rows } = await sql.query<WithdrawalAccountRow>(
    `INSERT INTO withdrawal_accounts (registration_id, customer_id, account_digits, clearing_number, account_number, bank_name, registered_at, registered_by, validation_day)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (customer_id, account_digits) WHERE status <> 'refused' DO NOTHING RETURNING ${COLUMNS}`,
    [registration.registrationId, registration.customerId, account.digits, account.clearingNumber, account.accountNumber, account.bankName,
      registration.registeredAt, registration.registeredBy, registration.validationDay],
  );
  if (rows[0]) return { row: withIsoTimes(rows[0]), created: true };
  const live = await sql.query<WithdrawalAccountRow>(
    `SELECT ${COLUMNS} FROM withdrawal_accounts WHERE customer_id = $1 AND account_digits = $2 AND status <> 'refused'`,
    [registration.customerId, account.digits],
  );
  return { row: withIsoTimes(live.rows[0]!), created: false };
}

/** Every registration of an account (clearing + account digits), oldest first. */
/**
 * The registrations of an account, oldest first; with `mayReach`, only those of
 * customers the caller may reach (its access decided on facts read in the same statement).
 */
export async function registrationsOfAccount(sql: Sql, accountDigits: string, mayReach?: AccessGate): Promise<WithdrawalAccountRow[]> {
  const { rows } = await sql.query<WithdrawalAccountRow & Partial<CustomerAccessRow>>(
    `SELECT ${COLUMNS}${mayReach ? `, ${customerAccessColumns('w.customer_id')}` : ''}
       FROM withdrawal_accounts w WHERE account_digits = $1 ORDER BY registered_at, registration_id`, [accountDigits],
  );
  return rows
    .filter((row) => !mayReach || mayReach(accessFactsOf(row as CustomerAccessRow)))
    .map((row) => withIsoTimes(withoutAccessColumns(row)));
}

/** Pending registrations due by a validation day, locked for the run that decides them (a concurrent run skips them). */
export async function pendingRegistrationsDue(sql: Sql, throughDay: IsoDate): Promise<WithdrawalAccountRow[]> {
  const { rows } = await sql.query<WithdrawalAccountRow>(
    `SELECT ${COLUMNS} FROM withdrawal_accounts WHERE status = 'pending' AND validation_day <= $1
      ORDER BY registered_at, registration_id FOR UPDATE SKIP LOCKED`, [throughDay],
  );
  return rows.map(withIsoTimes);
}

export type RegistrationDecision = { readonly status: 'validated' } | { readonly status: 'refused'; readonly reason: string };

export async function decideRegistration(sql: Sql, registrationId: string, decision: RegistrationDecision, at: Date): Promise<void> {
  await sql.query(
    `UPDATE withdrawal_accounts SET status = $2, refusal_reason = $3, decided_at = $4 WHERE registration_id = $1 AND status = 'pending'`,
    [registrationId, decision.status, decision.status === 'refused' ? decision.reason : null, at],
  );
}

/** Whether the customer's account is validated for withdrawals. */
export async function isValidatedAccount(sql: Sql, customerId: string, accountDigits: string): Promise<boolean> {
  const { rows } = await sql.query(
    `SELECT 1 FROM withdrawal_accounts WHERE customer_id = $1 AND account_digits = $2 AND status = 'validated'`, [customerId, accountDigits],
  );
  return rows.length > 0;
}

/** pg gives timestamps as Date, PGlite too; the API speaks ISO strings. */
function withIsoTimes(row: WithdrawalAccountRow): WithdrawalAccountRow {
  const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : (value as string | null));
  return { ...row, registeredAt: iso(row.registeredAt)!, decidedAt: iso(row.decidedAt) };
}
