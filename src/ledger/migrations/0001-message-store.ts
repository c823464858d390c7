/**
 * The message store: one row per received document with its raw bytes, its status
 * history, its response and every delivery attempt. Nothing here is ever deleted by
 * the gateway; duplicates are stored too, pointing at the original.
 */
export const version = 1;
export const name = 'message store';
export const sql = `
CREATE TABLE messages (
  id               text PRIMARY KEY,
  seq              bigserial NOT NULL UNIQUE,
  counterparty_id  text NOT NULL,
  channel          text NOT NULL,
  external_id      text NOT NULL,
  sha256           text NOT NULL,
  size_bytes       bigint NOT NULL,
  raw              bytea,
  raw_location     text,
  message_type     text,
  ordering_key     text,
  document         jsonb,
  status           text NOT NULL CHECK (status IN ('received','validated','applied','rejected','duplicate','dead')),
  outcome          text CHECK (outcome IN ('accepted','partially_accepted','rejected')),
  error_code       text,
  dead_stage       text,
  duplicate_of     text REFERENCES messages(id),
  metadata         jsonb NOT NULL DEFAULT '{}'::jsonb,
  received_at      timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL DEFAULT now(),
  CHECK (raw IS NOT NULL OR raw_location IS NOT NULL)
);
CREATE UNIQUE INDEX messages_original_by_external_id ON messages (counterparty_id, external_id) WHERE duplicate_of IS NULL;
CREATE UNIQUE INDEX messages_original_by_content ON messages (counterparty_id, sha256) WHERE duplicate_of IS NULL;
CREATE INDEX messages_waiting_by_key ON messages (ordering_key, seq) WHERE status IN ('received','validated');
CREATE INDEX messages_unvalidated_by_counterparty ON messages (counterparty_id, seq) WHERE status = 'received';
CREATE INDEX messages_by_status ON messages (status, updated_at);
CREATE INDEX messages_by_counterparty ON messages (counterparty_id, seq);

CREATE TABLE message_events (
  id          bigserial PRIMARY KEY,
  message_id  text NOT NULL REFERENCES messages(id),
  at          timestamptz NOT NULL DEFAULT now(),
  status      text NOT NULL,
  reason      text,
  detail      jsonb
);
CREATE INDEX message_events_by_message ON message_events (message_id, id);

CREATE TABLE responses (
  message_id     text PRIMARY KEY REFERENCES messages(id),
  document_type  text NOT NULL,
  file_name      text NOT NULL,
  body           text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  delivered_at   timestamptz
);
CREATE INDEX responses_undelivered ON responses (created_at) WHERE delivered_at IS NULL;

CREATE TABLE deliveries (
  id          bigserial PRIMARY KEY,
  message_id  text NOT NULL REFERENCES messages(id),
  channel     text NOT NULL,
  target      text,
  outcome     text NOT NULL CHECK (outcome IN ('delivered','failed')),
  error       text,
  at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX deliveries_by_message ON deliveries (message_id, id);
`;
