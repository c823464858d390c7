import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Client secrets (and other passwords the gateway checks) are configured as scrypt
 * hashes, never in the clear: `scrypt$<N>$<r>$<p>$<salt>$<hash>`, salt and hash in
 * base64url. `depot-gateway hash-secret` makes one. A configuration file that leaks
 * then gives an attacker no password to try elsewhere.
 */

const PREFIX = 'scrypt';
/** Cost parameters: about 50 ms and 16 MiB per check on the reference machine. */
const DEFAULTS = { N: 16_384, r: 8, p: 1, keyLength: 32 } as const;
const FORMAT = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]{16,})\$([A-Za-z0-9_-]{43})$/;

export function isSecretHash(value: string): boolean {
  return FORMAT.test(value);
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p, keyLength } = DEFAULTS;
  const hash = await derive(secret, salt, N, r, p, keyLength);
  return [PREFIX, N, r, p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** Whether the secret matches the hash; false (never an exception) for a malformed hash. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const match = FORMAT.exec(stored);
  if (!match) return false;
  const [, n, r, p, salt, hash] = match as unknown as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(secret, Buffer.from(salt, 'base64url'), Number(n), Number(r), Number(p), expected.length);
  return timingSafeEqual(actual, expected);
}

function derive(secret: string, salt: Buffer, N: number, r: number, p: number, keyLength: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, keyLength, { N, r, p, maxmem: 256 * N * r }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}
