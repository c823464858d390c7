import type { CollectResponseBody, CompletionData } from './bankid-protocol.ts';
import { readSignedData } from './signed-data.ts';

/**
 * Whether a collected BankID order is a signature that counts for the case it was
 * started for. BankID tells us who signed and what they saw; it does not know who was
 * meant to sign. An order started without a required personal number (the QR flow
 * BankID recommends) can be completed by anyone who scans the code, so a completed
 * order counts only when the signer's personal number is the expected signatory's and
 * the signature covers exactly the text we asked them to sign.
 */
export interface ExpectedSignature {
  /** The signatory's personal identity number, 12 digits (a hyphen before the last four is allowed). */
  readonly personalNumber: string;
  /** The text the order was started with (SignOrder.visibleText). */
  readonly visibleText: string;
}

export type SignatoryCheck =
  | { readonly counts: true; readonly completionData: CompletionData }
  | { readonly counts: false; readonly reason: 'notComplete'; readonly status: 'pending' | 'failed'; readonly hintCode: string }
  | { readonly counts: false; readonly reason: 'otherSigner'; readonly expected: string; readonly signedBy: string }
  | { readonly counts: false; readonly reason: 'signatureUnreadable'; readonly problem: string }
  | { readonly counts: false; readonly reason: 'otherText' };

export function checkSignatory(collected: CollectResponseBody, expected: ExpectedSignature): SignatoryCheck {
  const expectedNumber = twelveDigits(expected.personalNumber);
  if (collected.status !== 'complete') return { counts: false, reason: 'notComplete', status: collected.status, hintCode: collected.hintCode };
  const { completionData } = collected;
  const signedBy = completionData.user.personalNumber;
  if (signedBy !== expectedNumber) return { counts: false, reason: 'otherSigner', expected: expectedNumber, signedBy };
  const signed = readSignedData(completionData.signature);
  if (!signed.ok) return { counts: false, reason: 'signatureUnreadable', problem: signed.problem };
  if (!signed.visibleData.equals(Buffer.from(expected.visibleText, 'utf8'))) return { counts: false, reason: 'otherText' };
  return { counts: true, completionData };
}

/** 12 digits from "YYYYMMDDNNNN" or "YYYYMMDD-NNNN"; anything else is a caller's mistake. */
function twelveDigits(personalNumber: string): string {
  const match = /^(\d{8})-?(\d{4})$/.exec(personalNumber);
  if (!match) throw new RangeError(`the expected signatory's personal number must have 12 digits (YYYYMMDDNNNN), not "${personalNumber}"`);
  return `${match[1]}${match[2]}`;
}
