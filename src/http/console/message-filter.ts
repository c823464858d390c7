import { addDays, isIsoDate } from '../../core/calendar-date.ts';
import { normaliseKey, type DocumentKeyKind } from '../../core/document-keys.ts';
import { isErrorCode } from '../../core/error-codes.ts';
import type { ConsoleMessageFilter } from '../../ledger/messages/console-messages.repository.ts';
import type { MessageOutcome, MessageStatus } from '../../ledger/messages/messages.repository.ts';

/**
 * The message browser's filter as it stands in the URL (so a filtered list is a link
 * staff can share), read into a store query. A filter that cannot be right — a bad
 * date, an unknown status, two document keys at once — is a message for the page,
 * never a failed request.
 */
export const STATUSES: readonly MessageStatus[] = ['received', 'validated', 'applied', 'rejected', 'duplicate', 'dead'];
export const OUTCOMES: readonly MessageOutcome[] = ['accepted', 'partially_accepted', 'rejected'];
export const CHANNELS: readonly string[] = ['folder', 'sftp', 'mail', 'ssek', 'rest', 'cli'];

/** URL parameters of the document keys, in the order the form shows them. */
export const KEY_PARAMETERS: readonly { readonly name: string; readonly kind: DocumentKeyKind; readonly label: string }[] = [
  { name: 'pnr', kind: 'personnummer', label: 'Personnummer' },
  { name: 'orgnr', kind: 'organisationsnummer', label: 'Organisationsnummer' },
  { name: 'agreement', kind: 'agreement', label: 'Agreement' },
  { name: 'insurance', kind: 'insurance', label: 'Insurance number' },
  { name: 'account', kind: 'custody-account', label: 'Custody account' },
];

export type BrowserQuery = Readonly<Record<string, string | undefined>>;

export interface FilterContext {
  readonly counterparties: readonly string[];
  readonly messageTypes: readonly string[];
}

export const PAGE_SIZE = 50;

export function readMessageFilter(query: BrowserQuery, context: FilterContext): { filter: ConsoleMessageFilter; errors: string[] } {
  const errors: string[] = [];
  const value = (name: string) => query[name]?.trim() || undefined;
  const oneOf = <T extends string>(name: string, allowed: readonly T[], label: string): T | undefined => {
    const given = value(name);
    if (given === undefined) return undefined;
    if (allowed.includes(given as T)) return given as T;
    errors.push(`${label} "${given}" is not known; it is one of ${allowed.join(', ')}.`);
    return undefined;
  };
  const day = (name: string, label: string): string | undefined => {
    const given = value(name);
    if (given === undefined) return undefined;
    if (isIsoDate(given) && addDays(given, 0) === given) return given;
    errors.push(`${label} "${given}" is not a date YYYY-MM-DD.`);
    return undefined;
  };
  const errorCode = value('error');
  if (errorCode !== undefined && !isErrorCode(errorCode)) errors.push(`Error code "${errorCode}" is not one of the gateway's codes (docs/errors.md).`);
  const before = value('before');
  const beforeSeq = before === undefined ? undefined : Number(before);
  if (beforeSeq !== undefined && !(Number.isSafeInteger(beforeSeq) && beforeSeq > 0)) errors.push(`"before" must be a message sequence number, not "${before}".`);
  const keys = KEY_PARAMETERS.flatMap((parameter) => {
    const given = value(parameter.name);
    const normalised = given === undefined ? '' : normaliseKey(parameter.kind, given);
    return normalised ? [{ kind: parameter.kind, value: normalised }] : [];
  });
  if (keys.length > 1) errors.push('Search by one of personnummer, organisationsnummer, agreement, insurance number and custody account at a time.');
  const filter: ConsoleMessageFilter = {
    counterpartyId: oneOf('counterparty', context.counterparties, 'Counterparty'),
    channel: oneOf('channel', CHANNELS, 'Channel'),
    messageType: oneOf('type', context.messageTypes, 'Document type'),
    status: oneOf('status', STATUSES, 'Status'),
    outcome: oneOf('outcome', OUTCOMES, 'Outcome'),
    errorCode: errorCode !== undefined && isErrorCode(errorCode) ? errorCode : undefined,
    receivedFrom: day('from', 'Received from'),
    receivedTo: day('to', 'Received to'),
    fileName: value('file'),
    headerMessageId: value('messageId'),
    key: keys[0],
    beforeSeq: errors.length === 0 ? beforeSeq : undefined,
    limit: PAGE_SIZE + 1,
  };
  if (filter.receivedFrom && filter.receivedTo && filter.receivedFrom > filter.receivedTo) errors.push('"Received from" is after "Received to".');
  return { filter, errors };
}
