import { childOf, optionalTextOf, type XmlElement } from '../xml-element.ts';

/**
 * What validation reads of a streamed custodian report: its preamble. The accounts are
 * read later, as a stream, when the report is applied. Fields are read leniently here
 * (the preamble's schema check happens in apply, with the first batch), so a broken
 * header is answered with its schema errors rather than failing to read.
 */
export interface CustodianReport {
  readonly messageId: string | undefined;
  readonly custodianOrganisationNumber: string;
  readonly asOfDate: string;
}

export function readCustodianReport(root: XmlElement): CustodianReport {
  const header = childOf(root, 'Header');
  return {
    messageId: header ? optionalTextOf(header, 'MessageId') : undefined,
    custodianOrganisationNumber: (header && optionalTextOf(header, 'CustodianOrganisationNumber')) ?? '',
    asOfDate: optionalTextOf(root, 'AsOfDate') ?? '',
  };
}

/** Reports of one custodian are applied in arrival order: a re-sent day replaces the earlier one. */
export function custodianOrderingKey(report: CustodianReport): string {
  return `custodian:${report.custodianOrganisationNumber}`;
}

/** An öre amount from a schema-valid decimal with at most two decimals ("-12.5" → -1250n). */
export function toOre(amount: string): bigint {
  const text = amount.trim();
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = text.replace(/^[+-]/, '').split('.');
  const ore = BigInt(whole || '0') * 100n + BigInt((fraction + '00').slice(0, 2));
  return negative ? -ore : ore;
}

/**
 * The öre of a schema-valid amount (an xs:decimal of at most two decimals) as a number:
 * what toOre gives, without a bigint, while it is below 2^53 öre (check with
 * Number.isSafeInteger). Reading a million positions, bigints cost half a second.
 */
export function oreOf(amount: string): number {
  const negative = amount.startsWith('-');
  const digits = negative || amount.startsWith('+') ? amount.slice(1) : amount;
  const dot = digits.indexOf('.');
  const whole = Number(dot < 0 ? digits : digits.slice(0, dot));
  const fraction = dot < 0 ? 0 : Number(`${digits.slice(dot + 1)}00`.slice(0, 2));
  const ore = whole * 100 + fraction;
  return negative ? -ore : ore;
}

/** "1234.50" from 123450n. */
export function formatOre(ore: bigint): string {
  const negative = ore < 0n;
  const value = negative ? -ore : ore;
  return `${negative ? '-' : ''}${value / 100n}.${String(value % 100n).padStart(2, '0')}`;
}
