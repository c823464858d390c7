/**
 * The yearly custodian reports (CostAndCharges, due 1 March – 30 April for the year
 * before): the recorded outcome per custodian, kind and account year — on_time, late or
 * missing — with the earliest arrival deciding, and when the operations team was told
 * about it (`notified_at`: never twice). The daily reports' table keeps banking days;
 * this one keeps account years.
 */
export const version = 22;
export const name = 'annual custodian report deadlines';
export const sql = `
CREATE TABLE custodian_annual_report_deadlines (
  custodian_id  text NOT NULL,
  kind          text NOT NULL CHECK (kind IN ('CostAndCharges')),
  year          integer NOT NULL,
  deadline      timestamptz NOT NULL,
  status        text NOT NULL CHECK (status IN ('on_time', 'late', 'missing')),
  arrived_at    timestamptz,
  message_id    text,
  -- When a deadline check first found the report missing.
  missing_since timestamptz,
  notified_at   timestamptz,
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (custodian_id, kind, year),
  CHECK ((status = 'missing') = (arrived_at IS NULL))
);
CREATE INDEX custodian_annual_report_deadlines_year ON custodian_annual_report_deadlines (year, status);
`;
