import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SignJWT, decodeJwt, jwtVerify, type JWTPayload } from 'jose';
import type { ApiClientConfig, GatewayConfig } from '../../config/config.schema.ts';
import type { ApiCaller } from '../../core/access.policy.ts';
import { GatewayError } from '../../core/gateway-error.ts';
import { verifySecret } from '../../config/secret-hash.ts';

/**
 * Access tokens of the REST API: OAuth 2.0 client credentials (RFC 6749 §4.4) answered
 * with a short-lived JWT (RFC 9068 profile: `iss`, `aud`, `sub` = client id, `jti`),
 * signed ES256 with the gateway's key.
 *
 * The key lives in a PEM file (`api.signingKeyPath`, by default
 * `<dataDir>/keys/api-token-signing.pem`, made at first start and readable by the
 * gateway's user only), so every `api` process of an installation signs and verifies
 * with the same key and tokens survive a restart. A token names its client only: the
 * client's kind and organisation are looked up in the configuration at each request,
 * so a client removed from `api.clients` is refused at once, whatever tokens it holds.
 */

const ISSUER = 'depot-gateway';
const AUDIENCE = 'depot-gateway-api';
const ALGORITHM = 'ES256';
/** A client assertion may be valid for at most this long (it is meant for one request). */
const MAX_ASSERTION_SECONDS = 300;

export interface IssuedToken {
  readonly accessToken: string;
  readonly expiresIn: number;
}

export class ApiTokens {
  readonly #privateKey: KeyObject;
  readonly #publicKey: KeyObject;
  readonly #clients: ReadonlyMap<string, ApiClientConfig>;
  readonly #lifetimeSeconds: number;
  /**
   * Tokens whose signature verified, with their subject and expiry (seconds): an advisor's
   * tool sends the same token with every request for its lifetime, and an ES256 check
   * costs more than the rest of a small GET. Still expiry-checked at every use; emptied
   * when MAX_REMEMBERED_TOKENS is reached.
   */
  readonly #verified = new Map<string, { readonly subject: string; readonly expiresAt: number }>();
  /** Public keys of the clients that sign client assertions (private_key_jwt), by client id. */
  readonly #clientKeys: ReadonlyMap<string, KeyObject>;
  /**
   * Client assertions already used (client id and jti) until they expire. In memory: with
   * several api processes an assertion could be used once per process within its at most
   * MAX_ASSERTION_SECONDS; the token it buys is no more than the client could get anyway.
   */
  readonly #usedAssertions = new Map<string, number>();
  /** Checked for an unknown client id, so that answering one takes as long as a wrong secret. */
  #decoyHash = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

  constructor(config: Readonly<GatewayConfig>, privateKey: KeyObject) {
    this.#privateKey = privateKey;
    this.#publicKey = createPublicKey(privateKey);
    this.#clients = new Map(config.api.clients.map((client) => [client.id, client]));
    this.#lifetimeSeconds = config.api.tokenLifetimeSeconds;
    const anySecret = config.api.clients.find((client) => client.secretHash)?.secretHash;
    if (anySecret) this.#decoyHash = anySecret;
    this.#clientKeys = new Map(config.api.clients.flatMap((client) => (client.publicKeyPath ? [[client.id, createPublicKey(readFileSync(client.publicKeyPath))] as const] : [])));
  }

  /** A token for a client whose secret matches; API_CLIENT_INVALID otherwise (also for a client that signs assertions instead). */
  async issue(clientId: string, secret: string, now: Date): Promise<IssuedToken> {
    const client = this.#clients.get(clientId);
    const matches = await verifySecret(secret, client?.secretHash ?? this.#decoyHash);
    if (!client?.secretHash || !matches) throw new GatewayError('API_CLIENT_INVALID');
    return this.#tokenFor(client, now);
  }

  /**
   * A token for a client that proved itself with a client assertion (private_key_jwt,
   * RFC 7523 §2.2): a JWT it signed with its own key, `iss` and `sub` its client id, `aud`
   * this gateway (`depot-gateway`, or the URL of its token endpoint), an `exp` at most
   * MAX_ASSERTION_SECONDS away, and a `jti` not used before — an assertion is good once.
   * A `claimedId` sent beside it (the form's client_id) must be that client.
   * API_CLIENT_INVALID for anything else, the reason in the error's text.
   */
  async issueForAssertion(assertion: string, now: Date, claimedId?: string): Promise<IssuedToken> {
    let clientId: string | undefined;
    try {
      clientId = decodeJwt(assertion).sub;
    } catch {
      throw new GatewayError('API_CLIENT_INVALID', 'The client assertion is not a JWT.');
    }
    if (claimedId !== undefined && claimedId !== clientId) throw new GatewayError('API_CLIENT_INVALID', 'client_id is not the client assertion\'s sub.');
    const client = clientId === undefined ? undefined : this.#clients.get(clientId);
    const key = clientId === undefined ? undefined : this.#clientKeys.get(clientId);
    if (!client || !key) throw new GatewayError('API_CLIENT_INVALID', `No client ${clientId ?? '(no sub)'} signs client assertions.`);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(assertion, key, { issuer: client.id, subject: client.id, currentDate: now, requiredClaims: ['exp', 'jti', 'aud'] }));
    } catch (error) {
      throw new GatewayError('API_CLIENT_INVALID', `The client assertion does not verify: ${(error as Error).message}`, { cause: error });
    }
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (!audiences.some((audience) => audience === ISSUER || /^https?:\/\/[^/]+(\/.*)?\/oauth\/token$/.test(audience ?? ''))) {
      throw new GatewayError('API_CLIENT_INVALID', 'The client assertion is not addressed to this gateway (aud: depot-gateway or the token endpoint URL).');
    }
    const nowSeconds = Math.floor(now.getTime() / 1000);
    if ((payload.exp as number) > nowSeconds + MAX_ASSERTION_SECONDS) {
      throw new GatewayError('API_CLIENT_INVALID', `The client assertion is valid for longer than ${MAX_ASSERTION_SECONDS} s.`);
    }
    this.#forgetUsedAssertions(nowSeconds);
    const used = `${client.id}\0${payload.jti}`;
    if (this.#usedAssertions.has(used)) throw new GatewayError('API_CLIENT_INVALID', 'The client assertion was used before (its jti); sign a new one for each request.');
    this.#usedAssertions.set(used, payload.exp as number);
    return this.#tokenFor(client, now);
  }

  #forgetUsedAssertions(nowSeconds: number): void {
    for (const [key, expiresAt] of this.#usedAssertions) if (expiresAt < nowSeconds) this.#usedAssertions.delete(key);
  }

  async #tokenFor(client: ApiClientConfig, now: Date): Promise<IssuedToken> {
    const issuedAt = Math.floor(now.getTime() / 1000);
    const accessToken = await new SignJWT({ client_id: client.id })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'at+jwt' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject(client.id)
      .setJti(randomUUID())
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + this.#lifetimeSeconds)
      .sign(this.#privateKey);
    return { accessToken, expiresIn: this.#lifetimeSeconds };
  }

  /** The caller a bearer token stands for; API_AUTHENTICATION_REQUIRED for anything else. */
  async verify(token: string, now: Date): Promise<ApiCaller> {
    const subject = await this.#subjectOf(token, now);
    const client = this.#clients.get(subject);
    if (!client) throw new GatewayError('API_AUTHENTICATION_REQUIRED', 'The client is no longer registered.');
    return client.kind === 'advisor-firm'
      ? { kind: 'advisor-firm', clientId: client.id, organisationNumber: client.organisationNumber }
      : { kind: 'custodian', clientId: client.id, custodianId: client.counterpartyId };
  }

  async #subjectOf(token: string, now: Date): Promise<string> {
    const remembered = this.#verified.get(token);
    if (remembered && now.getTime() < remembered.expiresAt * 1000) return remembered.subject;
    try {
      const { payload } = await jwtVerify(token, this.#publicKey, {
        issuer: ISSUER, audience: AUDIENCE, algorithms: [ALGORITHM], typ: 'at+jwt', currentDate: now, requiredClaims: ['exp', 'sub'],
      });
      const verified = { subject: payload.sub as string, expiresAt: payload.exp as number };
      if (this.#verified.size >= MAX_REMEMBERED_TOKENS) this.#verified.clear();
      this.#verified.set(token, verified);
      return verified.subject;
    } catch (error) {
      if (remembered) this.#verified.delete(token);
      throw new GatewayError('API_AUTHENTICATION_REQUIRED', tokenProblem(error), { cause: error });
    }
  }
}

/** Verified tokens remembered at most (a few hundred bytes each). */
const MAX_REMEMBERED_TOKENS = 10_000;

function tokenProblem(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === 'ERR_JWT_EXPIRED') return 'The token has expired.';
  return 'The token is not one this gateway issued.';
}

/**
 * The signing key: read from its file, or — at the default place only — made once.
 * Made under a temporary name and linked into place, so two processes starting at
 * once end up with the same key.
 */
export function loadSigningKey(config: Readonly<GatewayConfig>): KeyObject {
  const configured = config.api.signingKeyPath;
  const path = configured ?? join(config.dataDir, 'keys', 'api-token-signing.pem');
  if (!existsSync(path)) {
    if (configured) throw new GatewayError('CONFIG_INVALID', `api.signingKeyPath: ${configured} does not exist (an EC P-256 private key in PEM)`);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    try {
      linkSync(temporary, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      rmSync(temporary, { force: true });
    }
  }
  try {
    const key = createPrivateKey(readFileSync(path));
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw new Error('not an EC P-256 key');
    return key;
  } catch (error) {
    throw new GatewayError('CONFIG_INVALID', `api.signingKeyPath: ${path} is not an EC P-256 private key in PEM (${(error as Error).message})`, { cause: error });
  }
}
