/**
 * scripts/test-services.sh installs what is missing without Debian starting its system
 * services: apt-get runs while a policy-rc.d refuses every start (exit 101), which is
 * removed afterwards, and a policy-rc.d the host already has is left alone. The real
 * apt-get would install packages on the machine running the tests, so it is the one
 * part stood in for: a recorder on PATH that asks the policy, as invoke-rc.d does,
 * whether sshd may start. The policy's path is a temp file (DG_POLICY_RC_D).
 */
import { test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, symlink, writeFile, access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../src/config/load-config.ts';

const run = promisify(execFile);
let dir: string;
let bin: string;

/** The commands the script uses besides the missing packages', from the system. */
const TOOLS = ['bash', 'id', 'tee', 'chmod', 'rm', 'cat', 'ls', 'sort', 'tail', 'env', 'sleep', 'seq'];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dg-test-services-'));
  bin = join(dir, 'bin');
  await run('mkdir', ['-p', bin]);
  for (const tool of TOOLS) {
    const { stdout } = await run('bash', ['-c', `command -v ${tool}`]);
    await symlink(stdout.trim(), join(bin, tool));
  }
  // Records each call, and what the policy answers for starting sshd while it runs.
  await writeFile(join(bin, 'apt-get'), [
    '#!/bin/sh',
    `log=${join(dir, 'apt-get.log')}`,
    'if [ -x "$DG_POLICY_RC_D" ]; then "$DG_POLICY_RC_D" ssh start; answer="policy answers $?"; else answer="no policy"; fi',
    'echo "apt-get $* -- $answer" >> "$log"',
    '',
  ].join('\n'));
  await chmod(join(bin, 'apt-get'), 0o755);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function runScript(policy: string): Promise<string[]> {
  await rm(join(dir, 'apt-get.log'), { force: true });
  await run(join(bin, 'bash'), [join(PROJECT_ROOT, 'scripts', 'test-services.sh')], {
    env: {
      PATH: bin, DG_POLICY_RC_D: policy,
      // PostgreSQL and Redis are given: the script leaves them alone.
      TEST_DATABASE_ADMIN_URL: 'postgres://127.0.0.1:5432/postgres', TEST_REDIS_URL: 'redis://127.0.0.1:6379',
    },
  });
  return (await readFile(join(dir, 'apt-get.log'), 'utf8')).trim().split('\n');
}

const exists = (path: string) => access(path).then(() => true, () => false);

test('packages are installed while a policy-rc.d forbids starting services, and the policy goes afterwards', async () => {
  const policy = join(dir, 'policy-rc.d');
  const calls = await runScript(policy);
  const install = calls.find((call) => call.includes(' install '));
  assert.ok(install, calls.join('\n'));
  // Missing from this PATH: the clients the tests use (sftp, openssl, curl, pdftotext …).
  assert.match(install, /install -y -qq .*openssh-client/);
  assert.match(install, / -- policy answers 101$/, 'no service may start during the install');
  assert.equal(await exists(policy), false, 'the policy placed for the install is removed');
});

test("a policy-rc.d the host has already is used and left as it was", async () => {
  const policy = join(dir, 'own-policy-rc.d');
  const own = '#!/bin/sh\n# the host\'s own\nexit 101\n';
  await writeFile(policy, own, { mode: 0o755 });
  const calls = await runScript(policy);
  assert.match(calls.find((call) => call.includes(' install ')) ?? '', / -- policy answers 101$/);
  assert.equal(await readFile(policy, 'utf8'), own);
});
