import pg from 'pg';
import { GatewayError } from '../core/gateway-error.ts';

/**
 * libpq's multi-host URLs for the `pg` driver, which connects to one host only (pg
 * 8.23 refuses `postgres://h1:5432,h2:5432/db` as an invalid URL and ignores
 * `target_session_attrs`):
 *
 *   postgresql://user:secret@db1:5432,db2:5432/depot?target_session_attrs=read-write
 *
 * The hosts are tried in the URL's order, as libpq does, and the first whose session has
 * what `target_session_attrs` asks for is used: `read-write` — takes writes (not a
 * standby in recovery, `default_transaction_read_only` off), what the gateway needs to
 * follow a promoted standby; `primary` — not in recovery; `any` (default) — the first
 * that answers. The others libpq knows (read-only, standby, prefer-standby) are refused:
 * the gateway writes.
 *
 * Invariants:
 * - a URL of one host without `target_session_attrs` is used as it is, untouched;
 * - the host found is kept for the connections that follow, and forgotten as soon as a
 *   connection to it fails or finds it no longer acceptable (a failover): the next
 *   connection searches again, from the first host;
 * - every connection made to a kept host is checked again (one statement when it opens),
 *   so a pool never keeps opening connections to a demoted server.
 */

export const TARGET_SESSION_ATTRS = ['any', 'read-write', 'primary'] as const;
export type TargetSessionAttrs = (typeof TARGET_SESSION_ATTRS)[number];

export interface PostgresHost {
  readonly host: string;
  /** Undefined: the driver's default (PGPORT, else 5432). */
  readonly port: number | undefined;
}

export interface PostgresTargets {
  readonly hosts: readonly PostgresHost[];
  readonly targetSessionAttrs: TargetSessionAttrs;
  /** Whether the URL asks for anything beyond one plain host (then it is used as it is). */
  readonly multiHost: boolean;
  /** The URL for one host: the given one with that host alone and without target_session_attrs. */
  urlOf(host: PostgresHost): string;
}

const URL_PARTS = /^(postgres(?:ql)?:\/\/)(?:([^@/?#]*)@)?([^/?#]*)(.*)$/;

/** Reads a PostgreSQL URL with one or several hosts; throws a RangeError naming what is wrong. */
export function parsePostgresTargets(url: string): PostgresTargets {
  const parts = URL_PARTS.exec(url);
  if (!parts) throw new RangeError('not a postgres:// or postgresql:// URL');
  const [, scheme = '', userInfo, hostList = '', rest = ''] = parts;
  const hosts = hostList.split(',').map(parseHost);
  const queryAt = rest.indexOf('?');
  const fragmentAt = rest.indexOf('#');
  const path = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const query = new URLSearchParams(queryAt < 0 ? '' : rest.slice(queryAt + 1, fragmentAt < 0 ? undefined : fragmentAt));
  const asked = query.get('target_session_attrs') ?? 'any';
  if (!(TARGET_SESSION_ATTRS as readonly string[]).includes(asked)) {
    throw new RangeError(`target_session_attrs=${asked}: the gateway writes, so only ${TARGET_SESSION_ATTRS.join(', ')}`);
  }
  query.delete('target_session_attrs');
  const remaining = query.toString();
  const prefix = `${scheme}${userInfo === undefined ? '' : `${userInfo}@`}`;
  const suffix = `${path}${remaining ? `?${remaining}` : ''}`;
  return {
    hosts,
    targetSessionAttrs: asked as TargetSessionAttrs,
    multiHost: hosts.length > 1 || asked !== 'any',
    urlOf: (host) => `${prefix}${formatHost(host)}${suffix}`,
  };
}

function parseHost(text: string): PostgresHost {
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d{1,5}))?$/.exec(text);
  if (!match) throw new RangeError(`host "${text}" is not host or host:port`);
  const [, host = '', port] = match;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) throw new RangeError(`port ${port} of host "${host}" is out of range`);
  return { host, port: port === undefined ? undefined : Number(port) };
}

function formatHost({ host, port }: PostgresHost): string {
  return port === undefined ? host : `${host}:${port}`;
}

/** What a session is, for target_session_attrs. */
const SESSION_CHECK = `SELECT pg_is_in_recovery() AS in_recovery, current_setting('transaction_read_only') = 'on' AS read_only`;

/** Why the session of `client` does not do for `attrs`, or undefined when it does. */
async function sessionRefusal(client: pg.ClientBase, attrs: TargetSessionAttrs): Promise<string | undefined> {
  if (attrs === 'any') return undefined;
  const { rows } = await client.query<{ in_recovery: boolean; read_only: boolean }>(SESSION_CHECK);
  const session = rows[0];
  if (session?.in_recovery) return 'a standby in recovery';
  if (attrs === 'read-write' && session?.read_only) return 'read-only (default_transaction_read_only is on)';
  return undefined;
}

/**
 * Opens one connection to the first acceptable host, in the URL's order. `config` is
 * everything but where (timeouts, application name …). A URL of one plain host is
 * connected to as before.
 */
export async function connectToTarget(url: string, config: Omit<pg.ClientConfig, 'connectionString'> = {}): Promise<pg.Client> {
  const targets = parsePostgresTargets(url);
  if (!targets.multiHost) {
    const client = new pg.Client({ ...config, connectionString: url });
    await client.connect();
    return client;
  }
  return (await connectFirstAcceptable(targets, config)).client;
}

async function connectFirstAcceptable(targets: PostgresTargets, config: Omit<pg.ClientConfig, 'connectionString'>): Promise<{ client: pg.Client; host: PostgresHost }> {
  const refusals: string[] = [];
  for (const host of targets.hosts) {
    const client = new pg.Client({ ...config, connectionString: targets.urlOf(host) });
    // A connection error after connecting is the caller's to listen for; until then it would be unhandled.
    const ignore = () => undefined;
    client.on('error', ignore);
    try {
      await client.connect();
      const refusal = await sessionRefusal(client, targets.targetSessionAttrs);
      if (refusal === undefined) {
        client.off('error', ignore);
        return { client, host };
      }
      refusals.push(`${formatHost(host)}: ${refusal}`);
    } catch (error) {
      refusals.push(`${formatHost(host)}: ${(error as Error).message || String((error as { code?: string }).code)}`);
    }
    await client.end().catch(() => undefined);
  }
  throw new GatewayError('DATABASE_UNAVAILABLE', `no host of the database URL has a ${targets.targetSessionAttrs} session: ${refusals.join('; ')}`);
}

/**
 * The host a pool's connections go to, found as `connectToTarget` does (its probe
 * connection is closed) and kept until a connection to it fails or finds it no longer
 * acceptable.
 */
export class PostgresHostChooser {
  #current: PostgresHost | undefined;
  #search: Promise<PostgresHost> | undefined;

  constructor(readonly targets: PostgresTargets, private readonly probeConfig: Omit<pg.ClientConfig, 'connectionString'>) {}

  /** The host to connect to: the one kept, else the first acceptable (one search at a time). */
  choose(): Promise<PostgresHost> {
    if (this.#current) return Promise.resolve(this.#current);
    this.#search ??= this.#find().finally(() => (this.#search = undefined));
    return this.#search;
  }

  /** A connection to `host` failed, or found it unacceptable: the next choice searches again. */
  forget(host: PostgresHost): void {
    if (this.#current === host) this.#current = undefined;
  }

  /** Why a newly opened session does not do (it is then closed by the caller), or undefined. */
  refusal(client: pg.ClientBase): Promise<string | undefined> {
    return sessionRefusal(client, this.targets.targetSessionAttrs);
  }

  async #find(): Promise<PostgresHost> {
    const { client, host } = await connectFirstAcceptable(this.targets, this.probeConfig);
    await client.end().catch(() => undefined);
    this.#current = host;
    return host;
  }
}
