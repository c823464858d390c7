import { createHash, timingSafeEqual } from 'node:crypto';
import { verifySecret } from '../config/secret-hash.ts';

/**
 * Checks a name and password against configured credentials: staff users, custodians'
 * REST passwords. A credential is a scrypt `passwordHash` (production) or a plain
 * `password` (the configuration accepts that only on a loopback host).
 *
 * scrypt costs about 50 ms a check by design, and a dashboard sends many requests with
 * the same Basic credentials, so a credential that verified is remembered (as a SHA-256
 * of name and password, never the password) and later requests cost a digest. Wrong
 * ones are never remembered: every guess pays full price, an unknown name included.
 */
export interface Credential {
  readonly name: string;
  readonly password?: string | undefined;
  readonly passwordHash?: string | undefined;
}

/** Remembered successes; past this many the memory starts again. */
const MAX_REMEMBERED = 1000;
/** A hash no password matches, checked for unknown names so they take as long as known ones. */
const UNKNOWN_NAME_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

export class PasswordCheck {
  private readonly credentials: ReadonlyMap<string, Credential>;
  private readonly verified = new Set<string>();

  constructor(credentials: Iterable<Credential>) {
    this.credentials = new Map([...credentials].map((credential) => [credential.name, credential]));
  }

  async matches(name: string, password: string): Promise<boolean> {
    const credential = this.credentials.get(name);
    if (credential?.password !== undefined) return timingSafeEqual(digest(credential.password), digest(password));
    const key = digest(`${name}\0${password}`).toString('base64');
    if (credential && this.verified.has(key)) return true;
    const ok = await verifySecret(password, credential?.passwordHash ?? UNKNOWN_NAME_HASH);
    if (!ok || !credential) return false;
    if (this.verified.size >= MAX_REMEMBERED) this.verified.clear();
    this.verified.add(key);
    return true;
  }
}

/** Equal-length digests so timingSafeEqual compares without leaking lengths. */
function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
