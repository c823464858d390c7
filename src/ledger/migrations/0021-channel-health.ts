/** The last state of each counterparty's SFTP server and of the gateway's mailbox, as the watch role found it. */
export const version = 21;
export const name = 'channel health';
export const sql = `
CREATE TABLE channel_health (
  subject     text NOT NULL,
  channel     text NOT NULL CHECK (channel IN ('sftp', 'mail')),
  state       text NOT NULL CHECK (state IN ('up', 'down')),
  detail      text,
  since       timestamptz NOT NULL,
  checked_at  timestamptz NOT NULL,
  PRIMARY KEY (subject, channel)
);
`;
