import { createHmac } from 'node:crypto';

/**
 * The data of BankID's animated QR code: what the QR code shown to the person holds
 * each second while an order is pending. The BankID app checks the HMAC against the
 * order's qrStartSecret (which never leaves the relying party) and the time against
 * when the order started, so a photographed code is useless a few seconds later.
 * Format: "bankid." qrStartToken "." time "." HMAC-SHA256(key: qrStartSecret,
 * message: time) in lower-case hex, where time is the whole seconds since the order
 * started, written in decimal.
 */
export function animatedQrData(qrStartToken: string, qrStartSecret: string, secondsSinceStart: number): string {
  if (!Number.isInteger(secondsSinceStart) || secondsSinceStart < 0) throw new RangeError(`the QR time must be whole seconds since the order started, not ${secondsSinceStart}`);
  const time = String(secondsSinceStart);
  const authCode = createHmac('sha256', qrStartSecret).update(time).digest('hex');
  return `bankid.${qrStartToken}.${time}.${authCode}`;
}

/** Whole seconds from the order's start to `now`, never below 0 (a clock step back shows time 0). */
export function qrSecondsSince(orderStartedAt: Date, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - orderStartedAt.getTime()) / 1000));
}
