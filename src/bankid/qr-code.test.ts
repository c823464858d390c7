import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { animatedQrData, qrSecondsSince } from './qr-code.ts';

const qrStartToken = '67df3917-fa0d-44e5-b327-edcc928297f8';
const qrStartSecret = 'd28db9a7-4cde-429e-a983-359be676944c';

/** HMAC-SHA256 worked out by the openssl CLI, not by node:crypto as the code under test does. */
function opensslHmacHex(key: string, message: string): string {
  const out = execFileSync('openssl', ['dgst', '-sha256', '-hmac', key, '-hex'], { input: message, encoding: 'utf8' });
  const hex = /([0-9a-f]{64})\s*$/.exec(out)?.[1];
  assert.ok(hex, `openssl printed no digest: ${out}`);
  return hex;
}

test('the QR data at 0, 1 and 59 seconds is the token, the time and the HMAC of the time under the secret', () => {
  for (const time of [0, 1, 59]) {
    const expected = `bankid.${qrStartToken}.${time}.${opensslHmacHex(qrStartSecret, String(time))}`;
    assert.equal(animatedQrData(qrStartToken, qrStartSecret, time), expected, `time ${time}`);
  }
});

test('the published worked example for this token and secret at time 0', () => {
  assert.equal(
    animatedQrData(qrStartToken, qrStartSecret, 0),
    'bankid.67df3917-fa0d-44e5-b327-edcc928297f8.0.dc69358e712458a66a7525beef148ae8526b1c71610eff2c16cdffb4cdac9bf8',
  );
});

test('the time is whole seconds since the order started, and a time that is not is refused', () => {
  const started = new Date('2026-11-25T10:00:00.000Z');
  assert.equal(qrSecondsSince(started, new Date('2026-11-25T10:00:00.999Z')), 0);
  assert.equal(qrSecondsSince(started, new Date('2026-11-25T10:00:01.000Z')), 1);
  assert.equal(qrSecondsSince(started, new Date('2026-11-25T10:00:29.500Z')), 29);
  assert.equal(qrSecondsSince(started, new Date('2026-11-25T09:59:58.000Z')), 0);
  assert.throws(() => animatedQrData(qrStartToken, qrStartSecret, 1.5), RangeError);
  assert.throws(() => animatedQrData(qrStartToken, qrStartSecret, -1), RangeError);
});
