import { GatewayError } from '../core/gateway-error.ts';
import type { GatewayConfig } from './config.schema.ts';
import { formatConfigProblems, type ConfigProblem } from './config-problem.ts';
import { MALFORMED, type WellFormedConfig } from './well-formed-config.ts';
import { verifySecret } from './secret-hash.ts';

/**
 * Secure by default: a gateway that listens beyond this machine must not open a door
 * with a password everybody can read. On a `host` that is not a loopback address the
 * configuration is refused (CONFIG_INVALID, every problem named) when it has
 *   - a plain `password` for a staff user or a custodian's REST door (use passwordHash),
 *   - `demo: true` (a known agreement and sample data),
 *   - a database, Redis (URL or Sentinel set) or mail password from the placeholder list below,
 *   - a passwordHash or secretHash of a secret published in this repository (the demo's
 *     staff password and API client secrets, the example's placeholders).
 * On loopback all of these stay allowed: the demo and the tests run there.
 */

/** Secrets printed in this repository (README, config/, docker-compose.yml, tests) or too common to be anyone's own. */
const PLACEHOLDERS: readonly string[] = [
  'demo-password', 'demo-advisor-secret', 'demo-custodian-secret', 'demo-custodian-rest-password', 'test-password',
  'change-me', 'changeme', 'change-me-to-a-long-random-secret', 'another-long-random-secret',
  'password', 'secret', 'depot', 'postgres', 'admin', 'redis',
];
/** Those worth an scrypt check against every configured hash (about 50 ms each): the ones this repository hands out. */
const PUBLISHED_SECRETS: readonly string[] = ['demo-password', 'demo-advisor-secret', 'demo-custodian-secret', 'demo-custodian-rest-password', 'change-me-to-a-long-random-secret'];

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(bare);
}

/**
 * What the configuration may not hold on a non-loopback host; none on loopback (or when
 * `host` itself is wrong). Cheap: no hashing. Reads each setting only where it is well-formed.
 */
export function exposedCredentialProblems(config: WellFormedConfig): ConfigProblem[] {
  const { host, demo, databaseUrl, redisUrl } = config.top;
  if (host === MALFORMED || isLoopbackHost(host)) return [];
  const exposed = `is not allowed with host ${host} (not a loopback address)`;
  const problems: ConfigProblem[] = [];
  if (demo === true) problems.push({ path: 'demo', problem: `the demo (known data and credentials) ${exposed}; start it without HOST, or set demo: false` });
  const plainPassword = (path: string) => ({ path, problem: `a plain password ${exposed}; set passwordHash (depot-gateway hash-secret)` });
  for (const { index, settings: user } of config.staffUsers === MALFORMED ? [] : config.staffUsers) {
    if (user.password !== MALFORMED && user.password !== undefined) problems.push(plainPassword(`staff.users.${index}.password`));
  }
  for (const { index, settings: counterparty } of config.counterparties === MALFORMED ? [] : config.counterparties) {
    if (counterparty.rest !== MALFORMED && counterparty.rest?.password !== undefined) problems.push(plainPassword(`counterparties.${index}.rest.password`));
  }
  const placeholder = (value: string | undefined) => value !== undefined && PLACEHOLDERS.includes(value);
  for (const [setting, url] of [['databaseUrl', databaseUrl], ['redisUrl', redisUrl]] as const) {
    if (url !== MALFORMED && placeholder(passwordOf(url))) problems.push({ path: setting, problem: 'its password is a placeholder from the documentation; choose your own' });
  }
  const { redis } = config.top;
  if (redis !== MALFORMED && redis !== undefined) {
    for (const key of ['password', 'sentinelPassword'] as const) {
      if (placeholder(redis[key])) problems.push({ path: `redis.${key}`, problem: 'a placeholder from the documentation; choose your own' });
    }
  }
  const { smtp, imap } = config.mail;
  if (smtp !== MALFORMED && placeholder(smtp?.password)) problems.push({ path: 'mail.smtp.password', problem: 'a placeholder from the documentation; choose your own' });
  if (imap !== MALFORMED && placeholder(imap?.password)) problems.push({ path: 'mail.imap.password', problem: 'a placeholder from the documentation; choose your own' });
  return problems;
}

/**
 * Refuses (CONFIG_INVALID) a non-loopback configuration whose hashes are of secrets this
 * repository publishes. Asynchronous (scrypt), so not part of parseConfig: openGateway
 * runs it first, for every role, before anything is opened or started.
 */
export async function refuseDemoSecrets(config: Readonly<GatewayConfig>): Promise<void> {
  if (isLoopbackHost(config.host)) return;
  const hashes: [setting: string, hash: string][] = [];
  for (const [index, user] of config.staff.users.entries()) if (user.passwordHash) hashes.push([`staff.users.${index}.passwordHash`, user.passwordHash]);
  for (const [index, counterparty] of config.counterparties.entries()) if (counterparty.rest?.passwordHash) hashes.push([`counterparties.${index}.rest.passwordHash`, counterparty.rest.passwordHash]);
  for (const [index, client] of config.api.clients.entries()) if (client.secretHash) hashes.push([`api.clients.${index}.secretHash`, client.secretHash]);
  const found = await Promise.all(hashes.map(async ([setting, hash]) => {
    const matches = await Promise.all(PUBLISHED_SECRETS.map((secret) => verifySecret(secret, hash)));
    return matches.some(Boolean)
      ? { path: setting, problem: `the hash of a secret published with depot-gateway (demo or example) is not allowed with host ${config.host}; make your own with depot-gateway hash-secret` }
      : undefined;
  }));
  const problems = found.filter((problem): problem is ConfigProblem => problem !== undefined);
  if (problems.length > 0) throw new GatewayError('CONFIG_INVALID', formatConfigProblems('configuration', problems));
}

function passwordOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    // libpq's several hosts (h1:5432,h2:5432) make no WHATWG URL; the hosts do not matter here.
    return decodeURIComponent(new URL(url.replace(/^([a-z]+:\/\/[^@/?#]*@)[^/?#]*/, '$1host')).password) || undefined;
  } catch {
    return undefined;
  }
}
