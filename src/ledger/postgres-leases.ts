import type pg from 'pg';
import { connectToTarget } from './postgres-hosts.ts';

/**
 * Channel leases held as PostgreSQL session advisory locks on a connection of their own.
 *
 * Invariants:
 * - A lease is held by at most one process: it is `pg_try_advisory_lock(LEASE_LOCKS,
 *   hashtext(name))` taken on this process's lease connection, which PostgreSQL keeps
 *   for exactly as long as that session lives. (Two names of one hash share a lock: one
 *   process then holds both, never two processes one.)
 * - A holder that dies gives its leases up with its session: at once when its process is
 *   killed (the system closes the connection and the server ends the session), within
 *   `tcp_keepalives_idle + interval × count` (≈ 11 s) when its host vanishes. Every
 *   standby tries the leases it lacks every `everyMs`, so one of them takes over that
 *   long after.
 * - A holder that cannot reach its session (the connection breaks, or a check does not
 *   answer within `3 × everyMs`) stops counting on its leases at once — its readers stop
 *   taking files — and takes them again only on a new session, as any standby would.
 * - A stop gives every lease up at once (the session ends), for a standby to take over.
 *
 * The same connection checks the session every `everyMs` (one `SELECT` for all the
 * names), so a lease costs one light statement a second per process, nothing per file.
 */

/** Any fixed number, not the calendar's (4_711_008): the first key of every lease's advisory lock. */
export const LEASE_LOCKS = 4_711_009;

export interface PostgresLeasesLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface PostgresLeasesOptions {
  readonly url: string;
  /** The leases this process's readers work under. */
  readonly names: readonly string[];
  /** How often the session is checked and missing leases tried. Default 1000 ms. */
  readonly everyMs?: number;
  readonly log: PostgresLeasesLog;
}

/** The channels' `ChannelLeases` (src/channels/channel-leases.ts), held in PostgreSQL. */
export class PostgresLeases {
  readonly #options: Required<PostgresLeasesOptions>;
  readonly #held = new Set<string>();
  readonly #listeners: ((name: string, held: boolean) => void)[] = [];
  #client: pg.Client | undefined;
  #timer: NodeJS.Timeout | undefined;
  #round: Promise<void> | undefined;
  #stopped = false;
  /** Whether the leases held elsewhere were logged (after the first round that worked). */
  #reported = false;
  /** Whether the last round failed (logged once until one works). */
  #failing = false;

  constructor(options: PostgresLeasesOptions) {
    this.#options = Object.freeze({ everyMs: 1000, ...options, names: Object.freeze([...new Set(options.names)]) });
    if (!(this.#options.everyMs > 0)) throw new RangeError('everyMs must be positive');
  }

  holds(name: string): boolean {
    return this.#held.has(name);
  }

  onChange(listener: (name: string, held: boolean) => void): void {
    this.#listeners.push(listener);
  }

  /** Takes what leases are free now (waited for, so a lone process reads from its start), then keeps trying. */
  async start(): Promise<void> {
    await this.#runRound();
  }

  /** Gives every lease up (the session ends) and stops trying. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#round;
    const client = this.#client;
    this.#client = undefined;
    this.#loseAll();
    await client?.end().catch(() => undefined);
  }

  #runRound(): Promise<void> {
    this.#round = this.#tryLeases().finally(() => {
      this.#round = undefined;
      if (!this.#stopped) this.#timer = setTimeout(() => void this.#runRound(), this.#options.everyMs);
    });
    return this.#round;
  }

  /** Checks the session and tries the leases not held; on any failure the session and every lease are given up. */
  async #tryLeases(): Promise<void> {
    const { names, log } = this.#options;
    try {
      const client = this.#client ?? (await this.#connect());
      const wanted = names.filter((name) => !this.#held.has(name));
      const { rows } = await client.query<{ name: string; taken: boolean }>(
        'SELECT name, pg_try_advisory_lock($1, hashtext(name)) AS taken FROM unnest($2::text[]) AS name',
        [LEASE_LOCKS, wanted],
      );
      if (this.#stopped || client !== this.#client) return;
      const taken = rows.filter((row) => row.taken).map((row) => row.name);
      for (const name of taken) this.#held.add(name);
      if (taken.length > 0) log.info({ leases: taken }, 'took channel leases: reading these inboxes, remote folders and mailboxes now');
      if (!this.#reported) {
        const elsewhere = wanted.filter((name) => !this.#held.has(name));
        if (elsewhere.length > 0) log.info({ leases: elsewhere }, 'channel leases held by another process: standing by for these');
        this.#reported = true;
      }
      for (const name of taken) this.#tell(name, true);
      if (this.#failing) log.info({}, 'channel lease session back');
      this.#failing = false;
    } catch (error) {
      if (!this.#failing) log.warn({ err: error, held: [...this.#held] }, 'channel lease session lost: what its leases cover is not read here until they are taken again');
      this.#failing = true;
      const client = this.#client;
      this.#client = undefined;
      this.#loseAll();
      // A session that may still live on the server holds its locks until it ends: end it.
      await client?.end().catch(() => undefined);
    }
  }

  async #connect(): Promise<pg.Client> {
    const { url, everyMs } = this.#options;
    // Several hosts in the URL: the first with a session that takes writes (src/ledger/postgres-hosts.ts).
    const client = await connectToTarget(url, {
      application_name: 'depot-gateway channel leases',
      connectionTimeoutMillis: Math.max(3 * everyMs, 2000),
      // A check not answered in this time counts as a lost session.
      query_timeout: Math.max(3 * everyMs, 2000),
      keepAlive: true,
      keepAliveInitialDelayMillis: 5000,
      // The server ends the session (and its locks) of a host that vanished within about 11 s.
      options: '-c tcp_keepalives_idle=5 -c tcp_keepalives_interval=2 -c tcp_keepalives_count=3 -c tcp_user_timeout=10000',
    });
    client.on('error', () => {
      // The next round's statement fails and gives the leases up.
      if (this.#client === client) this.#loseAll();
    });
    if (this.#stopped) {
      await client.end().catch(() => undefined);
      throw new Error('stopped');
    }
    this.#client = client;
    return client;
  }

  #loseAll(): void {
    const lost = [...this.#held];
    this.#held.clear();
    for (const name of lost) this.#tell(name, false);
  }

  #tell(name: string, held: boolean): void {
    for (const listener of this.#listeners) listener(name, held);
  }
}
