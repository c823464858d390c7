/**
 * Mail is set aside for two more reasons: its From domain was not authenticated by the
 * insurer's receiving server (Authentication-Results), or it is larger than
 * mail.imap.maxMailBytes and was not fetched.
 */
export const version = 15;
export const name = 'mail authentication';
export const sql = `
ALTER TABLE mail_set_aside DROP CONSTRAINT mail_set_aside_reason_check;
ALTER TABLE mail_set_aside ADD CONSTRAINT mail_set_aside_reason_check
  CHECK (reason IN ('unknown-sender', 'not-authenticated', 'too-large', 'no-xml-attachment', 'unreadable'));
`;
