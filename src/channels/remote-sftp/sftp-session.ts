import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import SftpClient from 'ssh2-sftp-client';
import { GatewayError } from '../../core/gateway-error.ts';

/**
 * One counterparty's connection to its own SFTP server, shared by the poller that
 * fetches its documents and the outbox that pushes our answers.
 *
 * Invariants:
 * - The server is trusted only when its host key's SHA256 fingerprint equals the pinned
 *   one; on a mismatch the handshake is refused (`SFTP_HOST_KEY_MISMATCH`, naming the
 *   counterparty and both fingerprints). Only key authentication is offered.
 * - One connection, opened on first use and reused until it breaks. A connect that
 *   fails makes the next attempts wait with exponential backoff (`backoffMs` doubling
 *   up to `maxBackoffMs`, ±25 % jitter); until then `run` fails at once with
 *   SftpBackoffError, without a network round trip. A connection lost after it was up
 *   is reopened on next use.
 * - A failed connect is logged once per kind of failure (a host key, a socket error
 *   code, a message), without a stack, until the kind changes or a connect works; the
 *   repeats are logged at debug. A server that stays wrong is one log line, not one a
 *   poll. `logged(error)` tells callers that an error of `run` was logged here already.
 * - No operation waits longer than `timeoutMs`: one that does drops the connection
 *   (its pending requests fail with it) and throws.
 */

/** Where and as whom to connect; the `sftp` settings of a counterparty. */
export interface SftpEndpoint {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  /** Read at every connect, so a rotated key is picked up without a restart. */
  readonly privateKeyPath: string;
  /** Pinned host key, "SHA256:<base64 without padding>" as `ssh-keygen -l` prints it. */
  readonly hostKeySha256: string;
  /** Handshake timeout and per-operation timeout. */
  readonly timeoutMs: number;
}

export interface SftpSessionLog {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface SftpSessionOptions {
  readonly counterpartyId: string;
  readonly endpoint: SftpEndpoint;
  readonly log: SftpSessionLog;
  /** Wait after the first failed connect. Default 500. */
  readonly backoffMs?: number;
  /** Longest wait between connect attempts. Default 60000. */
  readonly maxBackoffMs?: number;
}

/**
 * What `run` throws while the backoff after a failed connect lasts: no attempt was
 * made. `cause` is the failure that began the wait.
 */
export class SftpBackoffError extends Error {
  override readonly name = 'SftpBackoffError';
}

/** The SHA256 fingerprint of an SSH public key blob, in ssh-keygen's notation. */
export function sha256Fingerprint(keyBlob: Uint8Array): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

export class SftpSession {
  readonly counterpartyId: string;
  readonly #endpoint: SftpEndpoint;
  readonly #log: SftpSessionLog;
  readonly #backoffMs: number;
  readonly #maxBackoffMs: number;
  #client: SftpClient | undefined;
  #connecting: Promise<SftpClient> | undefined;
  #failures = 0;
  #notBefore = 0;
  /** The last connection attempt's failure, the cause of every refusal until the next attempt. */
  #lastFailure: Error | undefined;
  /** The kind of failure logged last (undefined: none since the last connect that worked). */
  #loggedKind: string | undefined;
  /** Errors `run` threw that were logged here already (connect failures and refusals). */
  readonly #logged = new WeakSet<object>();
  #closed = false;

  constructor(options: SftpSessionOptions) {
    this.counterpartyId = options.counterpartyId;
    this.#endpoint = Object.freeze({ ...options.endpoint });
    this.#log = options.log;
    this.#backoffMs = options.backoffMs ?? 500;
    this.#maxBackoffMs = options.maxBackoffMs ?? 60_000;
  }

  /**
   * Runs `work` on the open connection (connecting first when needed) within the
   * timeout. `what` names the operation in errors and logs.
   */
  async run<T>(what: string, work: (client: SftpClient) => Promise<T>): Promise<T> {
    const client = await this.#connected();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.#drop(client);
        reject(new Error(`${what} on ${this.#where()} took longer than ${this.#endpoint.timeoutMs} ms`));
      }, this.#endpoint.timeoutMs);
    });
    try {
      return await Promise.race([work(client), timeout]);
    } catch (error) {
      // A numeric code is an SFTP status (no such file, permission …): the connection is fine.
      if (typeof (error as { code?: unknown }).code !== 'number') this.#drop(client);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether `error`, thrown by `run`, is a connect failure (or a refusal during backoff) that was logged here. */
  logged(error: unknown): boolean {
    return typeof error === 'object' && error !== null && this.#logged.has(error);
  }

  /** Ends the connection; later calls to `run` fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client ?? (await this.#connecting?.catch(() => undefined));
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  #connected(): Promise<SftpClient> {
    if (this.#closed) return Promise.reject(new Error(`the SFTP session to ${this.#where()} is closed`));
    if (this.#client) return Promise.resolve(this.#client);
    if (this.#connecting) return this.#connecting;
    const waitMs = this.#notBefore - Date.now();
    if (waitMs > 0) {
      const refusal = new SftpBackoffError(`${this.#where()} is unreachable (${this.#lastFailure?.message}); next connection attempt in ${waitMs} ms`, { cause: this.#lastFailure });
      this.#logged.add(refusal);
      return Promise.reject(refusal);
    }
    this.#connecting = this.#connect().finally(() => (this.#connecting = undefined));
    return this.#connecting;
  }

  async #connect(): Promise<SftpClient> {
    const { host, port, username, privateKeyPath, hostKeySha256, timeoutMs } = this.#endpoint;
    let mismatch: string | undefined;
    const client: SftpClient = new SftpClient(`sftp-${this.counterpartyId}`, {
      error: (error) => this.#log.debug({ err: error, counterpartyId: this.counterpartyId }, 'SFTP connection error'),
      end: () => this.#drop(client),
      close: () => this.#drop(client),
    });
    try {
      await client.connect({
        host,
        port,
        username,
        privateKey: await readFile(privateKeyPath),
        readyTimeout: timeoutMs,
        keepaliveInterval: Math.max(1000, Math.floor(timeoutMs / 3)),
        keepaliveCountMax: 3,
        hostVerifier: (key: Buffer) => {
          const presented = sha256Fingerprint(key);
          if (presented === hostKeySha256) return true;
          mismatch = presented;
          return false;
        },
      });
    } catch (error) {
      await client.end().catch(() => undefined);
      this.#failures += 1;
      const delay = Math.min(this.#maxBackoffMs, this.#backoffMs * 2 ** (this.#failures - 1));
      const waitMs = Math.round(delay * (0.75 + Math.random() * 0.5));
      this.#notBefore = Date.now() + waitMs;
      const failure = mismatch === undefined
        ? (error instanceof Error ? error : new Error(String(error)))
        : new GatewayError('SFTP_HOST_KEY_MISMATCH', `${this.#where()} presented ${mismatch}; ${hostKeySha256} is pinned for ${this.counterpartyId}.`, {
          cause: error,
          details: { counterpartyId: this.counterpartyId, pinned: hostKeySha256, presented: mismatch },
        });
      this.#lastFailure = failure;
      this.#logFailure(failure, mismatch, waitMs);
      throw failure;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      throw new Error(`the SFTP session to ${this.#where()} is closed`);
    }
    if (this.#failures > 0) this.#log.info({ counterpartyId: this.counterpartyId, failures: this.#failures }, `connected to ${this.#where()} again`);
    this.#failures = 0;
    this.#loggedKind = undefined;
    this.#lastFailure = undefined;
    this.#notBefore = 0;
    this.#client = client;
    return client;
  }

  /**
   * One line per kind of failure until it changes (a host-key mismatch at error: it
   * needs a person; anything else at warn), the repeats at debug; never a stack.
   */
  #logFailure(failure: Error, presented: string | undefined, retryInMs: number): void {
    const code = (failure.cause as { code?: unknown } | undefined)?.code ?? (failure as { code?: unknown }).code;
    const kind = presented !== undefined ? `host key ${presented}` : typeof code === 'string' ? code : failure.message;
    const fields = { counterpartyId: this.counterpartyId, host: this.#endpoint.host, port: this.#endpoint.port, failures: this.#failures, retryInMs };
    this.#logged.add(failure);
    if (kind === this.#loggedKind) {
      this.#log.debug({ ...fields, error: failure.message }, `still cannot connect to ${this.#where()}`);
      return;
    }
    this.#loggedKind = kind;
    if (presented !== undefined) {
      this.#log.error(
        { ...fields, pinned: this.#endpoint.hostKeySha256, presented },
        `refusing ${this.#where()} for counterparty ${this.counterpartyId}: its host key ${presented} is not the pinned ${this.#endpoint.hostKeySha256}; ` +
          'trying again with backoff up to a minute, and logging this again only when it changes',
      );
    } else {
      this.#log.warn({ ...fields, error: failure.message }, `cannot connect to ${this.#where()}: ${failure.message}; trying again with backoff up to a minute, and logging this again only when it changes`);
    }
  }

  /** Forgets a broken connection (once); the next `run` opens a new one. */
  #drop(client: SftpClient): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#log.debug({ counterpartyId: this.counterpartyId }, `SFTP connection to ${this.#where()} dropped`);
    void client.end().catch(() => undefined);
    // end() waits for a polite close that a hung peer never sends: cut the socket too.
    (client as unknown as { client?: { destroy?(): void } }).client?.destroy?.();
  }

  #where(): string {
    return `${this.#endpoint.username}@${this.#endpoint.host}:${this.#endpoint.port}`;
  }
}
