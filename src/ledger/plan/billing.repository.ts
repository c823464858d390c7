import type { Sql } from '../database.ts';

/**
 * Billing stops and starts (BillingStop, BillingStart): dated rows in billing_events,
 * never changed afterwards. The billing state of an insurance on a date is its latest
 * event on or before it (InsuranceFacts.lastBillingEvent reads the latest of all).
 */
export interface NewBillingEvent {
  readonly insuranceNumber: string;
  readonly event: 'Stop' | 'Start';
  readonly effectiveDate: string;
  /** Why billing stopped; null for a start. */
  readonly reason: string | null;
}

/** Records the events in one statement, in the given order (so ids follow the document's items). */
export async function insertBillingEvents(sql: Sql, messageId: string, events: readonly NewBillingEvent[]): Promise<void> {
  if (events.length === 0) return;
  await sql.query(
    `INSERT INTO billing_events (insurance_number, event, effective_date, reason, message_id)
     SELECT e.insurance_number, e.event, e.effective_date, e.reason, $5
       FROM unnest($1::text[], $2::text[], $3::date[], $4::text[]) WITH ORDINALITY AS e(insurance_number, event, effective_date, reason, ordinality)
      ORDER BY e.ordinality`,
    [events.map((e) => e.insuranceNumber), events.map((e) => e.event), events.map((e) => e.effectiveDate), events.map((e) => e.reason), messageId],
  );
}
