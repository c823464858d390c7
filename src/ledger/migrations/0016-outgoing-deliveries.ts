/**
 * Outgoing documents (a debit run's or payout run's DebitAccounts) are delivered by the
 * deliver stage after the run has committed, as responses are, so each attempt is
 * recorded the way `deliveries` records a response's.
 *
 * - `outgoing_deliveries`: every delivery attempt of an outgoing document, with its
 *   channel and target or its error.
 * - One file name per counterparty: a document recorded under a name is the only one
 *   that is ever delivered under it.
 */
export const version = 16;
export const name = 'outgoing deliveries';
export const sql = `
CREATE TABLE outgoing_deliveries (
  id           bigserial PRIMARY KEY,
  document_id  text NOT NULL REFERENCES outgoing_documents(document_id),
  channel      text,
  target       text,
  outcome      text NOT NULL CHECK (outcome IN ('delivered', 'failed')),
  error        text,
  at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outgoing_deliveries_by_document ON outgoing_deliveries (document_id, id);
CREATE UNIQUE INDEX outgoing_documents_by_file_name ON outgoing_documents (counterparty_id, file_name);
`;
