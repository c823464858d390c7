/**
 * The CLI's refusals say what to do: a gateway that refuses the staff credentials names
 * DEPOT_GATEWAY_STAFF_PASSWORD, and a command that finds the embedded database held by a
 * gateway on another port says where it looked and how to give it that port (PORT).
 * Real gateway processes: on PostgreSQL with only a password hash configured, and on the
 * embedded database.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashSecret } from '../src/config/secret-hash.ts';
import { createTestDatabase, deleteQueues, testSettings, waitFor, type TestDatabase } from './support/harness.ts';
import { freePort, runCli, runCliToEnd, writeConfigFile, type GatewayProcess } from './support/processes.ts';

const answers = async (port: number) => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.ok === true;

/** Waits for the gateway process to answer, or fails with what it printed. */
async function answering(gateway: GatewayProcess, port: number, timeoutMs: number): Promise<void> {
  await waitFor(() => answers(port) || gateway.child.exitCode !== null, 'the gateway to answer', timeoutMs).catch(() => undefined);
  if (!(await answers(port))) assert.fail(`the gateway did not answer on port ${port}: ${gateway.output()}`);
}

async function stop(gateway: GatewayProcess): Promise<void> {
  if (gateway.child.exitCode !== null) return;
  gateway.child.kill('SIGTERM');
  await gateway.exited;
}

describe('CLI refusals that say what to do', () => {
  let folder: string;
  const prefixes: string[] = [];

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'dg-cli-refusals-'));
  });
  afterAll(async () => {
    for (const prefix of prefixes) await deleteQueues(prefix);
    await rm(folder, { recursive: true, force: true });
  });

  test('a gateway refusing the staff credentials: the refusal names DEPOT_GATEWAY_STAFF_PASSWORD', async () => {
    const database: TestDatabase = await createTestDatabase();
    const port = await freePort();
    const settings = testSettings(join(folder, 'hashed'), {
      databaseUrl: database.url, port, logLevel: 'warn', staff: { users: [{ username: 'desk', passwordHash: await hashSecret('desk-password-1') }] },
    });
    prefixes.push(settings.queuePrefix as string);
    const config = await writeConfigFile(await mkdtemp(join(folder, 'hashed-')), settings);
    const gateway = runCli(['api', '--config', config]);
    try {
      await answering(gateway, port, 60_000);
      const without = await runCliToEnd(['messages', '--config', config], { DEPOT_GATEWAY_STAFF_PASSWORD: '' });
      assert.equal(without.code, 2, without.stderr);
      assert.match(without.stderr, /STAFF_AUTHENTICATION_REQUIRED: .*only a hash of staff user desk's password: set DEPOT_GATEWAY_STAFF_PASSWORD to that password/);

      const wrong = await runCliToEnd(['messages', '--config', config], { DEPOT_GATEWAY_STAFF_PASSWORD: 'not-the-password' });
      assert.equal(wrong.code, 2, wrong.stderr);
      assert.match(wrong.stderr, new RegExp(`STAFF_AUTHENTICATION_REQUIRED: .*DEPOT_GATEWAY_STAFF_PASSWORD is not staff user desk's password at http://127\\.0\\.0\\.1:${port}`));

      const right = await runCliToEnd(['messages', '--config', config], { DEPOT_GATEWAY_STAFF_PASSWORD: 'desk-password-1' });
      assert.equal(right.code, 0, right.stderr);
    } finally {
      await stop(gateway);
      await database.drop();
    }
  });

  test('a gateway on the embedded database listening on another port: the refusal says where the command looked and how to give it the port', async () => {
    const [gatewayPort, otherPort] = [await freePort(), await freePort()];
    const settings = testSettings(join(folder, 'embedded'), { logLevel: 'warn', demo: false });
    prefixes.push(settings.queuePrefix as string);
    const config = await writeConfigFile(await mkdtemp(join(folder, 'embedded-')), settings);
    const env = { DATABASE_URL: '', DEPOT_GATEWAY_CONFIG: '' };
    const gateway = runCli(['api', '--config', config], { ...env, PORT: String(gatewayPort) });
    try {
      await answering(gateway, gatewayPort, 240_000);
      const elsewhere = await runCliToEnd(['messages', '--config', config], { ...env, PORT: String(otherPort) });
      assert.equal(elsewhere.code, 2, elsewhere.stderr);
      assert.match(elsewhere.stderr, new RegExp(`DATA_FOLDER_IN_USE: .* in use by process ${gateway.child.pid} `));
      assert.ok(elsewhere.stderr.includes(`No gateway answered this command at http://127.0.0.1:${otherPort}`), elsewhere.stderr);
      assert.ok(elsewhere.stderr.includes('PORT=<its port> depot-gateway'), elsewhere.stderr);

      // The advice works: with the gateway's port the command goes through it.
      const through = await runCliToEnd(['messages', '--config', config], { ...env, PORT: String(gatewayPort) });
      assert.equal(through.code, 0, through.stderr);
    } finally {
      await stop(gateway);
    }
  });
});
