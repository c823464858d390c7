/**
 * Secure by default (issue 19, item 2): no silent demo, no published or plain
 * passwords on an address beyond this machine, hashed passwords at both login doors,
 * and wrong credentials throttled per client address. The CLI runs as a child process;
 * the gateway on real PostgreSQL and Redis.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import pg from 'pg';
import { pino } from 'pino';
import { openGateway, type Role } from '../src/app.ts';
import { DEMO_CONFIG_PATH, parseConfig } from '../src/config/load-config.ts';
import { refuseDemoSecrets } from '../src/config/exposed-credentials.ts';
import { hashSecret } from '../src/config/secret-hash.ts';
import { createTestDatabase, deleteQueues, fixedClock, startTestGateway, testSettings, type TestGateway } from './support/harness.ts';
import { runCliToEnd, writeConfigFile } from './support/processes.ts';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('configuration: no silent demo, nothing published on a non-loopback host', () => {
  let folder: string;
  beforeAll(async () => (folder = await mkdtemp(join(tmpdir(), 'dg-secure-'))));
  afterAll(() => rm(folder, { recursive: true, force: true }));

  test('start without a configuration fails with CONFIG_INVALID saying how to start the demo or where the file goes', async () => {
    const result = await runCliToEnd(['start'], { DEPOT_GATEWAY_CONFIG: '' });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /^depot-gateway: CONFIG_INVALID: .*no configuration given/);
    assert.match(result.stderr, /--config <file> or DEPOT_GATEWAY_CONFIG/);
    assert.match(result.stderr, /npm start, or depot-gateway --demo start/);
  });

  test('the demo on a non-loopback address is refused before anything starts, naming every problem', async () => {
    const result = await runCliToEnd(['--demo', 'start'], { DEPOT_GATEWAY_CONFIG: '', HOST: '0.0.0.0', PORT: '0' });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /CONFIG_INVALID/);
    assert.match(result.stderr, /demo: the demo .* not allowed with host 0\.0\.0\.0/);
    assert.match(result.stderr, /staff\.users\.0\.password: a plain password is not allowed with host 0\.0\.0\.0/);
    const both = await runCliToEnd(['--demo', '--config', DEMO_CONFIG_PATH, 'messages']);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /give --config <file> or --demo, not both/);
  });

  test('plain passwords and placeholder database, Redis and mail passwords pass on loopback only', async () => {
    const settings = {
      staff: { users: [{ username: 'ops', password: 'a-long-plain-password' }] },
      databaseUrl: 'postgresql://depot:depot@db:5432/depot',
      redisUrl: 'redis://:change-me@redis:6379',
      mail: { smtp: { host: 'smtp', from: 'gw@insurer.example', user: 'gw', password: 'changeme' } },
      counterparties: [{ id: 'c', name: 'C', organisationNumber: '5560000001', role: 'custodian', rest: { password: 'a-long-rest-password' } }],
    };
    assert.equal(parseConfig({ ...settings, host: '127.0.0.1' }).staff.users[0]?.password, 'a-long-plain-password');
    assert.doesNotThrow(() => parseConfig({ ...settings, host: '::1' }));
    assert.doesNotThrow(() => parseConfig({ ...settings, host: 'localhost' }));
    const refused = () => parseConfig({ ...settings, host: '10.0.0.5' });
    assert.throws(refused, /CONFIG_INVALID|configuration/);
    for (const problem of [
      /staff\.users\.0\.password: a plain password/, /counterparties\.0\.rest\.password: a plain password/,
      /databaseUrl: its password is a placeholder/, /redisUrl: its password is a placeholder/, /mail\.smtp\.password: a placeholder/,
    ]) assert.throws(refused, problem);
  });

  test('a password is given one way: passwordHash (a real scrypt hash) or password, not both and not neither', async () => {
    const hash = await hashSecret('a-long-plain-password');
    assert.doesNotThrow(() => parseConfig({ host: '0.0.0.0', staff: { users: [{ username: 'ops', passwordHash: hash }] } }));
    assert.throws(() => parseConfig({ staff: { users: [{ username: 'ops', password: 'a-long-plain-password', passwordHash: hash }] } }), /staff\.users\.0: set passwordHash/);
    assert.throws(() => parseConfig({ staff: { users: [{ username: 'ops' }] } }), /staff\.users\.0: set passwordHash/);
    assert.throws(() => parseConfig({ staff: { users: [{ username: 'ops', passwordHash: 'a-long-plain-password' }] } }), /staff\.users\.0\.passwordHash: a hash made by `depot-gateway hash-secret`/);
  });

  test("the demo's API client hashes and a hash of the demo staff password are refused on a non-loopback host, kept on loopback", async () => {
    const demo = parseYaml(readFileSync(DEMO_CONFIG_PATH, 'utf8')) as { api: unknown; counterparties: unknown };
    const exposed = { host: '0.0.0.0', api: demo.api, counterparties: demo.counterparties, staff: { users: [{ username: 'ops', passwordHash: await hashSecret('demo-password') }] } };
    await assert.rejects(refuseDemoSecrets(parseConfig(exposed)), (error: Error) => {
      assert.match(error.message, /api\.clients\.0\.secretHash: the hash of a secret published/);
      assert.match(error.message, /api\.clients\.1\.secretHash: the hash of a secret published/);
      assert.match(error.message, /staff\.users\.0\.passwordHash: the hash of a secret published/);
      return true;
    });
    await refuseDemoSecrets(parseConfig({ ...exposed, host: '127.0.0.1' }));
    await refuseDemoSecrets(parseConfig({ host: '0.0.0.0', staff: { users: [{ username: 'ops', passwordHash: await hashSecret('our own long secret') }] } }));
  });

  test('a configuration written for a container (HOST 0.0.0.0) with the demo clients does not start', async () => {
    const demo = parseYaml(readFileSync(DEMO_CONFIG_PATH, 'utf8')) as { api: unknown; counterparties: unknown };
    const config = await writeConfigFile(folder, { ...testSettings(join(folder, 'data'), { demo: false, staff: { users: [] } }), api: demo.api, counterparties: demo.counterparties });
    const result = await runCliToEnd(['api', '--config', config], { HOST: '0.0.0.0', PORT: '0' });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /CONFIG_INVALID[\s\S]*api\.clients\.0\.secretHash: the hash of a secret published/);
  });
});

describe('a published secret on a non-loopback host is refused before anything runs, whatever the roles', () => {
  const roleSets: { roles: Role[] }[] = [{ roles: ['worker'] }, { roles: ['watch'] }, { roles: ['api', 'worker', 'watch'] }];
  test.each(roleSets)('roles $roles: CONFIG_INVALID, and no folder, table, migration, calendar job or queue was made', async ({ roles }) => {
    const database = await createTestDatabase();
    const folder = await mkdtemp(join(tmpdir(), 'dg-refused-'));
    const dataDir = join(folder, 'data');
    const config = parseConfig(testSettings(dataDir, {
      host: '0.0.0.0', demo: false, databaseUrl: database.url, metricsPort: 0,
      staff: { users: [{ username: 'ops', passwordHash: await hashSecret('demo-password') }] },
    }));
    try {
      await assert.rejects(openGateway(config, { roles, clock: fixedClock, log: pino({ level: 'silent' }) }), (error: Error & { code?: string }) => {
        assert.equal(error.code, 'CONFIG_INVALID');
        assert.match(error.message, /staff\.users\.0\.passwordHash: the hash of a secret published/);
        return true;
      });
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const tables = await client.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')");
        assert.deepEqual(tables.rows.map((row) => row.table_name), [], 'no migration ran (so no calendar_runs either)');
      } finally {
        await client.end();
      }
      assert.equal(await deleteQueues(config.queuePrefix), 0, 'no calendar job or queue in Redis');
      assert.equal(existsSync(dataDir), false, 'no data folder');
    } finally {
      await database.drop();
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('login doors: hashed passwords and a throttle on wrong ones', () => {
  let gateway: TestGateway;
  const STAFF = 'staff password of ours';
  const REST = 'custodian rest password';
  const inject = (url: string, authorization: string | undefined, remoteAddress: string) =>
    gateway.http!.inject({ url, remoteAddress, headers: authorization ? { authorization } : {} });

  beforeAll(async () => {
    gateway = await startTestGateway({
      roles: ['api'],
      settings: {
        loginFailuresPerMinute: 3,
        staff: { users: [{ username: 'ops', passwordHash: await hashSecret(STAFF) }] },
        counterparties: [{ id: 'demo-custodian', name: 'Demo Custodian AB', organisationNumber: '5560000001', role: 'custodian', messageTypes: ['custodian-reporting'], rest: { passwordHash: await hashSecret(REST) } }],
      },
    });
  });
  afterAll(() => gateway.destroy());

  test('staff sign in with the password whose hash is configured; a wrong one is 401', async () => {
    assert.equal((await inject('/api/messages', basic('ops', STAFF), '192.0.2.1')).statusCode, 200);
    assert.equal((await inject('/api/messages', basic('ops', STAFF), '192.0.2.1')).statusCode, 200, 'again, from the remembered check');
    assert.equal((await inject('/api/messages', basic('ops', 'not the password'), '192.0.2.1')).statusCode, 401);
    assert.equal((await inject('/api/messages', basic('nobody', STAFF), '192.0.2.1')).statusCode, 401);
  });

  test('after loginFailuresPerMinute wrong credentials an address is answered 429 with Retry-After, even with the right ones; others are not', async () => {
    const guesser = '198.51.100.7';
    for (let attempt = 0; attempt < 3; attempt += 1) {
      assert.equal((await inject('/api/messages', basic('ops', `guess-${attempt}`), guesser)).statusCode, 401, `guess ${attempt}`);
    }
    const limited = await inject('/api/messages', basic('ops', STAFF), guesser);
    assert.equal(limited.statusCode, 429);
    assert.equal((limited.json() as { code: string }).code, 'TOO_MANY_REQUESTS');
    assert.ok(Number(limited.headers['retry-after']) > 0 && Number(limited.headers['retry-after']) <= 60, String(limited.headers['retry-after']));
    // The custodians' REST door counts in the same throttle.
    assert.equal((await inject('/Holdings/01J00000000000000000000000', basic('demo-custodian', REST), guesser)).statusCode, 429);
    assert.equal((await inject('/api/messages', basic('ops', STAFF), '198.51.100.8')).statusCode, 200, 'another address');
    // Requests without credentials guess nothing and are not counted.
    for (let attempt = 0; attempt < 5; attempt += 1) assert.equal((await inject('/api/messages', undefined, '198.51.100.9')).statusCode, 401);
    assert.equal((await inject('/api/messages', basic('ops', STAFF), '198.51.100.9')).statusCode, 200);
  });

  test("the custodians' REST door checks the hashed password and throttles wrong ones", async () => {
    const address = '203.0.113.4';
    const unknown = await inject('/Holdings/01J00000000000000000000000', basic('demo-custodian', REST), address);
    assert.equal(unknown.statusCode, 404, 'signed in; the message does not exist');
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const refused = await inject('/Holdings/01J00000000000000000000000', basic('demo-custodian', `guess-${attempt}`), address);
      assert.equal(refused.statusCode, 401);
      assert.equal((refused.json() as { code: string }).code, 'COUNTERPARTY_AUTHENTICATION_REQUIRED');
    }
    assert.equal((await inject('/Holdings/01J00000000000000000000000', basic('demo-custodian', REST), address)).statusCode, 429);
    assert.equal((await inject('/api/messages', basic('ops', STAFF), address)).statusCode, 429, 'and the staff door for the same address');
  });
});
