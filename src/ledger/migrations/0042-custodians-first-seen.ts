/**
 * When the gateway first knew each custodian: a custodian owes no report whose deadline
 * passed before then (a new installation, or a custodian added to the configuration, is
 * not told about days before it existed). The worker role records every configured
 * custodian at start; a row, once written, is never moved.
 *
 * An installation that already checked deadlines keeps expecting every custodian it
 * recorded an outcome or an arrival for: such a custodian counts as known from the day
 * before its earliest recorded deadline or arrival, so a check missed while the gateway
 * was down across this migration is still caught up.
 */
export const version = 42;
export const name = 'custodians first seen';
export const sql = `
CREATE TABLE custodians_first_seen (
  custodian_id   text PRIMARY KEY,
  first_seen_at  timestamptz NOT NULL
);
INSERT INTO custodians_first_seen (custodian_id, first_seen_at)
SELECT custodian_id, min(at) - interval '1 day' FROM (
  SELECT custodian_id, deadline AS at FROM custodian_report_deadlines
  UNION ALL SELECT custodian_id, received_at FROM custodian_report_arrivals
  UNION ALL SELECT custodian_id, deadline FROM custodian_annual_report_deadlines
) AS recorded GROUP BY custodian_id;
`;
