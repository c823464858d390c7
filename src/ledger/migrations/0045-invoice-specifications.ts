/**
 * Invoice specifications: each month every pension-plan agreement's employer gets the
 * specification of what it is invoiced (docs/invoice-specification.md), as an
 * InvoiceSpecification document recorded in `outgoing_documents` (delivered as a debit
 * run's DebitAccounts is) and as a PDF kept here.
 *
 * - `invoice_specifications`: one row per agreement and month — the primary key keeps a
 *   month from being specified twice, whatever runs it (the calendar job, its catch-up,
 *   staff) and however often — with the document it recorded, the counterparty it goes
 *   to, the totals the document carries and the PDF.
 * - `staff_audit` needs nothing new: staff's "send again" is an action of its own there.
 */
export const version = 45;
export const name = 'invoice specifications';
export const sql = `
CREATE TABLE invoice_specifications (
  agreement_number    text NOT NULL REFERENCES agreements(agreement_number),
  month               text NOT NULL CHECK (month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
  document_id         text NOT NULL UNIQUE REFERENCES outgoing_documents(document_id),
  counterparty_id     text NOT NULL,
  insured_count       integer NOT NULL CHECK (insured_count >= 0),
  premiums            numeric(18,2) NOT NULL,
  extra_premiums      numeric(18,2) NOT NULL,
  total               numeric(18,2) NOT NULL,
  pdf                 bytea NOT NULL,
  created_at          timestamptz NOT NULL,
  PRIMARY KEY (agreement_number, month)
);
CREATE INDEX invoice_specifications_by_month ON invoice_specifications (month DESC, agreement_number);
`;
