/**
 * Custodian report deadlines and the calendar scheduler's run log.
 *
 * - `custodian_report_arrivals`: one row per received Holdings or Transactions
 *   document (the message id is the key, so recording it twice changes nothing), with
 *   the banking day its 08:30 deadline falls on.
 * - `custodian_report_deadlines`: the recorded outcome per custodian, kind and due
 *   day — on_time, late or missing — with the earliest arrival deciding, and when the
 *   operations team was told about it (`notified_at`: never twice).
 * - `calendar_runs`: which period of which calendar job has run, so a run is done once
 *   and a period missed while the gateway was down is run at the next start.
 */
export const version = 8;
export const name = 'custodian report deadlines and calendar runs';
export const sql = `
CREATE TABLE custodian_report_arrivals (
  message_id    text PRIMARY KEY,
  custodian_id  text NOT NULL,
  kind          text NOT NULL CHECK (kind IN ('Holdings', 'Transactions')),
  as_of_date    date NOT NULL,
  due_day       date NOT NULL,
  received_at   timestamptz NOT NULL,
  recorded_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX custodian_report_arrivals_due ON custodian_report_arrivals (custodian_id, kind, due_day, received_at);

CREATE TABLE custodian_report_deadlines (
  custodian_id  text NOT NULL,
  kind          text NOT NULL CHECK (kind IN ('Holdings', 'Transactions')),
  due_day       date NOT NULL,
  deadline      timestamptz NOT NULL,
  status        text NOT NULL CHECK (status IN ('on_time', 'late', 'missing')),
  arrived_at    timestamptz,
  message_id    text,
  -- When a deadline check first found the report missing.
  missing_since timestamptz,
  notified_at   timestamptz,
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (custodian_id, kind, due_day),
  CHECK ((status = 'missing') = (arrived_at IS NULL))
);
CREATE INDEX custodian_report_deadlines_day ON custodian_report_deadlines (due_day, status);

CREATE TABLE calendar_runs (
  job           text NOT NULL,
  period        text NOT NULL,
  completed_at  timestamptz NOT NULL,
  PRIMARY KEY (job, period)
);
`;
