/**
 * Mail the mailbox channel set aside: from an unknown sender, without an XML
 * attachment, or unreadable. The mail itself stays in the aside folder of the
 * gateway's mailbox; this table lets staff list what is there and why, without
 * opening the mailbox. One row per mail (its Message-ID): a mail set aside again after
 * a broken connection is not recorded twice.
 */
export const version = 6;
export const name = 'mailbox set-aside mail';
export const sql = `
CREATE TABLE mail_set_aside (
  id               bigserial PRIMARY KEY,
  mail_message_id  text NOT NULL UNIQUE,
  sender           text,
  subject          text NOT NULL,
  reason           text NOT NULL CHECK (reason IN ('unknown-sender', 'no-xml-attachment', 'unreadable')),
  detail           text NOT NULL,
  folder           text NOT NULL,
  received_at      timestamptz NOT NULL,
  recorded_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mail_set_aside_received ON mail_set_aside (received_at DESC);
`;
