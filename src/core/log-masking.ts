import { maskPersonalIdentityNumbers } from './identifiers.ts';

/**
 * What a log line may not hold: personal identity numbers (identifiers.ts), access
 * tokens and bank account numbers. Every line the gateway logs passes through
 * `maskLogLine` as written, so it is pure and cheap: the rules run only on a line that
 * holds a word one of them needs (`access_token`, `bearer`, `authorization`, `eyJ`,
 * `/sign/`, `withdrawal`, `accountNumber`, `DirectQuery`), found with one test, and what a rule writes keeps a
 * JSON line valid JSON.
 *
 * - Access tokens are dropped, whatever carries them: an `access_token` query parameter
 *   or JSON member, `Bearer <token>`, the value of an `authorization` header or field,
 *   and any JWT (`eyJ….….…`), the form the gateway's tokens and clients' assertions
 *   take, and the signing page's link token (`t=` in the query of a `/sign/` path). A
 *   token in a log is a credential for anyone who reads it.
 * - A bank account in a REST path — `/Customer/{account}/WithdrawalAccount` and
 *   `/Customer/{account}/WithdrawalInformation`, where the specification puts the
 *   account as the customer number — and the value of an `accountNumber` member are
 *   masked to their clearing number (`5000*******`): enough to see which bank, not
 *   enough to pay to. Other numbers (message ids, amounts, insurance and custody
 *   account numbers such as `INS-200001` or `DEPA-100001`, organisation numbers) stay.
 * - The customer a direct query asks about (`/DirectQuery/{customerId}`, a personnummer
 *   or an organisation number) is masked to its first six digits
 *   (`/DirectQuery/556123****`): whose engagement was read is in the record of direct
 *   queries, for staff, not in the log.
 */

/** What a token, or an authorization header's credentials, is replaced with. */
export const DROPPED = '[dropped]';

/**
 * Bank account digits with the clearing number (the first four digits) kept and every
 * later digit starred, separators as they were: `50001234560` → `5000*******`,
 * `5000-1234560` → `5000-*******`.
 */
export function maskBankAccountNumber(account: string): string {
  if (DIGITS_ONLY.test(account)) return account.length <= 4 ? account : `${account.slice(0, 4)}${'*'.repeat(account.length - 4)}`;
  const clearingNumber = CLEARING_NUMBER.exec(account)?.[0] ?? account;
  return `${clearingNumber}${account.slice(clearingNumber.length).replace(/\d/g, '*')}`;
}

const DIGITS_ONLY = /^\d+$/;
/** Up to and with the fourth digit. */
const CLEARING_NUMBER = /^\D*(?:\d\D*){3}\d/;

/** Clearing number and account, digits with at most a space or hyphen between groups. */
const BANK_ACCOUNT_FORM = /^\d{4}(?:[ -]?\d)+$/;

/**
 * A log field named for an account (`accountNumber`, `account`): a bank account —
 * digits, or an object with `digits` as src/core/bank-account.ts reads one — masked to
 * its clearing number; anything else (a custody account `DEPA-100001`, a count) as it was.
 */
export function maskAccountField(value: unknown): unknown {
  if (typeof value === 'number') return BANK_ACCOUNT_FORM.test(String(value)) ? maskBankAccountNumber(String(value)) : value;
  if (typeof value === 'string') return BANK_ACCOUNT_FORM.test(value) ? maskBankAccountNumber(value) : value;
  if (typeof value === 'object' && value !== null && 'digits' in value && typeof value.digits === 'string') return maskBankAccountNumber(value.digits);
  return value;
}

// Each rule's replacement writes no quote or backslash and stops before one, so a
// JSON line stays JSON (a nested string's quotes are written \").
const ACCESS_TOKEN = /(access_token(?:=|%3D|\\?"\s*:\s*\\?"))[^&#\s"'\\]*/gi;
// `Bearer realm="…"` (a challenge, not a token) is left as it is.
const BEARER = /\b(bearer)\s+(?![a-z_]+=\\?")[a-z0-9._~+/-]+=*/gi;
const AUTHORIZATION = /\b(authorization\\?"?\s*[:=]\s*\\?"?)((?:basic|bearer|digest)\s+)?[^\s"\\,;&}]+/gi;
const JWT = /\beyJ[\w-]{8,}\.[\w-]+\.[\w-]*/g;
// The signing page's link token: `/sign/<id>?t=<token>` (and any `t=` later in its query).
const SIGN_LINK_TOKEN = /(\/sign\/[^?#\s"'\\]*\?(?:[^#\s"'\\]*?&)?t(?:=|%3D))[^&#\s"'\\]*/gi;
const ACCOUNT_IN_PATH = /(\/customer\/)([^/?#\s"\\]+)(?=\/withdrawal(?:account|information)\b)/gi;
const ACCOUNT_NUMBER_MEMBER = /(account_?number\\?"?\s*[:=]\s*\\?"?)(\d{4}(?:[ -]?\d)+)/gi;
const CUSTOMER_IN_DIRECT_QUERY = /(\/directquery\/)(\d{6})[-+]?\d+/gi;

/** The text with every access token dropped (`access_token=[dropped]`, `Bearer [dropped]`, `/sign/SC-1?t=[dropped]`). */
export function dropAccessTokens(text: string): string {
  return text
    .replace(ACCESS_TOKEN, `$1${DROPPED}`)
    .replace(BEARER, `$1 ${DROPPED}`)
    .replace(AUTHORIZATION, `$1$2${DROPPED}`)
    .replace(JWT, DROPPED)
    .replace(SIGN_LINK_TOKEN, `$1${DROPPED}`);
}

/** The text with each bank account in a withdrawal path or `accountNumber` member masked to its clearing number. */
export function maskBankAccounts(text: string): string {
  return text
    .replace(ACCOUNT_IN_PATH, (_match, prefix: string, account: string) => `${prefix}${maskBankAccountNumber(account)}`)
    .replace(ACCOUNT_NUMBER_MEMBER, (_match, name: string, account: string) => `${name}${maskBankAccountNumber(account)}`);
}

/** The text with the customer of each direct query path masked to its first six digits. */
export function maskDirectQueryCustomers(text: string): string {
  return text.replace(CUSTOMER_IN_DIRECT_QUERY, '$1$2****');
}

/**
 * The words the rules need. A line without any (nearly every line) costs one test of
 * `TOKEN_OR_ACCOUNT`, about half what masking its personal identity numbers costs;
 * running the rules costs ten times that (bench/log-masking.ts).
 */
const TOKEN_OR_ACCOUNT = /access_token|bearer|authorization|eyJ|\/sign\/|withdrawal|account_?number|directquery/i;
const TOKEN = /access_token|bearer|authorization|eyJ|\/sign\//i;
const ACCOUNT = /withdrawal|account_?number/i;
const DIRECT_QUERY = /directquery/i;

/**
 * A log line as it may be written: tokens dropped, bank accounts masked to their
 * clearing number, personal identity numbers masked to their date of birth. Accounts
 * go before personal identity numbers: an account's digits can read as one, which
 * would otherwise be masked to a date of birth that shows most of the account.
 */
export function maskLogLine(line: string): string {
  let text = line;
  if (TOKEN_OR_ACCOUNT.test(text)) {
    if (TOKEN.test(text)) text = dropAccessTokens(text);
    if (ACCOUNT.test(text)) text = maskBankAccounts(text);
    if (DIRECT_QUERY.test(text)) text = maskDirectQueryCustomers(text);
  }
  return maskPersonalIdentityNumbers(text);
}
