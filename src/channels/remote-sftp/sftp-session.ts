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
 *   one; on a mismatch the handshake is refused and an error naming the counterparty and
 *   both fingerprints is logged. Only key authentication is offered.
 * - One connection, opened on first use and reused until it breaks. A connect that
 *   fails makes the next attempts wait with exponential backoff (`backoffMs` doubling
 *   up to `maxBackoffMs`, with jitter); until then `run` fails at once, without a
 *   network round trip. A connection lost after it was up is reopened on next use.
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
  /** Why the last connection attempt failed, told with every refusal until the next attempt. */
  #lastFailure = '';
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
      return Promise.reject(new Error(`${this.#where()} is unreachable (${this.#lastFailure}); next connection attempt in ${waitMs} ms`));
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
          this.#log.error(
            { counterpartyId: this.counterpartyId, host, port, pinned: hostKeySha256, presented },
            `refusing ${this.#where()} for counterparty ${this.counterpartyId}: its host key ${presented} is not the pinned ${hostKeySha256}`,
          );
          return false;
        },
      });
    } catch (error) {
      await client.end().catch(() => undefined);
      this.#failures += 1;
      const delay = Math.min(this.#maxBackoffMs, this.#backoffMs * 2 ** (this.#failures - 1));
      this.#notBefore = Date.now() + Math.round(delay * (0.75 + Math.random() * 0.5));
      this.#lastFailure = error instanceof Error ? error.message : String(error);
      if (mismatch !== undefined) {
        throw new GatewayError('SFTP_HOST_KEY_MISMATCH', `${this.#where()} presented ${mismatch}; ${hostKeySha256} is pinned for ${this.counterpartyId}.`, {
          cause: error,
          details: { counterpartyId: this.counterpartyId, pinned: hostKeySha256, presented: mismatch },
        });
      }
      this.#log.warn({ err: error, counterpartyId: this.counterpartyId, retryInMs: delay, failures: this.#failures }, `cannot connect to ${this.#where()}`);
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      throw new Error(`the SFTP session to ${this.#where()} is closed`);
    }
    if (this.#failures > 0) this.#log.info({ counterpartyId: this.counterpartyId }, `connected to ${this.#where()} again`);
    this.#failures = 0;
    this.#notBefore = 0;
    this.#client = client;
    return client;
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
