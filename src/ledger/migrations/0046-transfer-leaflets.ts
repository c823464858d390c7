/**
 * Transfer leaflets (flyttblad, docs/transfer-leaflet.md): the document an insurance's
 * capital travels with when it moves between insurers.
 *
 * - `transfer_leaflets_out`: one row per insurance of ours that ended transferred out to
 *   an insurer counterparty, written in the transaction that records the end: the
 *   receiving insurer, the leaflet as sent (JSON, for the console and its PDF), its value
 *   and value date, and the `outgoing_documents` row that carries its XML to the receiving
 *   insurer's channel. The primary key keeps an insurance from sending two.
 * - `transfer_leaflets_in`: one row per leaflet received from an insurer and registered:
 *   the releasing insurer, its insurance number and reference, the value awaited, and the
 *   insurance the gateway opened for it (`insurance_number`). Until `money_received_on`
 *   is set the insurance is `awaiting money` (src/core/insurance-status.ts). The unique key
 *   on (releasing insurer, its insurance number) refuses a second registration of the
 *   same insurance whatever its MessageId.
 */
export const version = 46;
export const name = 'transfer leaflets';
export const sql = `
CREATE TABLE transfer_leaflets_out (
  insurance_number   text PRIMARY KEY REFERENCES insurances(insurance_number),
  receiving_insurer  text NOT NULL,
  document_id        text NOT NULL UNIQUE REFERENCES outgoing_documents(document_id),
  value              numeric(20,2) NOT NULL,
  value_date         date NOT NULL,
  leaflet            jsonb NOT NULL,
  created_by         text NOT NULL,
  created_at         timestamptz NOT NULL
);
CREATE INDEX transfer_leaflets_out_by_time ON transfer_leaflets_out (created_at DESC);

CREATE TABLE transfer_leaflets_in (
  message_id                  text PRIMARY KEY,
  counterparty_id             text NOT NULL,
  releasing_insurer           text NOT NULL,
  releasing_insurance_number  text NOT NULL,
  releasing_reference         text NOT NULL,
  insurance_number            text NOT NULL UNIQUE REFERENCES insurances(insurance_number),
  value                       numeric(20,2) NOT NULL,
  value_date                  date NOT NULL,
  leaflet                     jsonb NOT NULL,
  money_received_on           date,
  created_at                  timestamptz NOT NULL,
  UNIQUE (releasing_insurer, releasing_insurance_number)
);
CREATE INDEX transfer_leaflets_in_by_time ON transfer_leaflets_in (created_at DESC);
`;
