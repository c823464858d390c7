/**
 * The signing SSEK client of docs/channels.md (*WS-Security signature*), run as it is
 * written there: the code block is taken from the page, saved as ssek-client.mjs in the
 * project's ignored .scratch/ folder (so `import soap from 'soap'` finds the dev
 * dependency) and run with node against a gateway whose demo-employer must sign. Its
 * ChangeFee is answered and applied; the same code without `additionalReferences` (what
 * a soap client signing only its defaults sends) is refused with wsse:FailedCheck.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { startTestGateway, type TestGateway } from './support/harness.ts';
import { baseUrl, counterparties, feeDocument } from './support/ssek-envelopes.ts';
import { makeTestCertificates, type CertificatePaths, type TestCertificates } from './support/certificates.ts';

const run = promisify(execFile);

/** The client's code as docs/channels.md shows it: the js block that starts with its file name. */
async function documentedClient(): Promise<string> {
  const page = await readFile(join(PROJECT_ROOT, 'docs', 'channels.md'), 'utf8');
  const block = /```js\n(\/\/ ssek-client\.mjs:[\s\S]*?)```/.exec(page)?.[1];
  assert.ok(block, 'docs/channels.md shows ssek-client.mjs');
  return block;
}

describe('the SSEK client with the soap package of docs/channels.md', () => {
  let certificates: TestCertificates;
  let signing: CertificatePaths;
  let gateway: TestGateway;
  let folder: string;

  beforeAll(async () => {
    certificates = await makeTestCertificates();
    signing = await certificates.signing('employer-signing');
    gateway = await startTestGateway({
      roles: ['api', 'worker'],
      settings: { counterparties: counterparties({ 'demo-employer': { signingCertificatePath: signing.cert } }) },
    });
    await mkdir(join(PROJECT_ROOT, '.scratch'), { recursive: true });
    folder = await mkdtemp(join(PROJECT_ROOT, '.scratch', 'ssek-client-'));
  });
  afterAll(async () => {
    await gateway?.destroy();
    await certificates?.remove();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  /** Runs the client on a ChangeFee; its exit code (0 or 1), what it printed, and the fault line it wrote. */
  const runClient = async (code: string, messageId: string, value: string) => {
    const script = join(folder, 'ssek-client.mjs');
    await writeFile(script, code);
    await writeFile(join(folder, 'change-fee.xml'), feeDocument(messageId, value));
    const env = { ...process.env, SSEK_URL: `${baseUrl(gateway)}/ssek`, SIGNING_KEY: signing.key, SIGNING_CERT: signing.cert };
    try {
      const { stdout, stderr } = await run(process.execPath, [script, join(folder, 'change-fee.xml')], { env, cwd: folder });
      return { exitCode: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: number; stdout: string; stderr: string };
      return { exitCode: failed.code ?? -1, stdout: failed.stdout, stderr: failed.stderr };
    }
  };

  test('signs the body, the SSEK header and the timestamp: the ChangeFee is answered and applied', async () => {
    const answer = await runClient(await documentedClient(), 'SOAP-CLIENT-1', '465');
    assert.equal(answer.exitCode, 0, answer.stderr);
    assert.match(answer.stdout, /<ChangeFeeResponse xmlns="urn:se:depot-gateway:v1">[\s\S]*<InResponseTo>SOAP-CLIENT-1<\/InResponseTo>[\s\S]*<Status>Accepted<\/Status>/);
    const { rows } = await gateway.deps.db.query(`SELECT 1 FROM insurance_fees WHERE value = 465`);
    assert.equal(rows.length, 1, 'applied');
  });

  test('without additionalReferences the SSEK header is not signed, and the request is refused with wsse:FailedCheck', async () => {
    const code = await documentedClient();
    const line = /^\s*additionalReferences: \['ssek:SSEK'\],.*\n/m;
    assert.match(code, line);
    const answer = await runClient(code.replace(line, ''), 'SOAP-CLIENT-2', '475');
    assert.equal(answer.exitCode, 1, answer.stdout);
    assert.match(answer.stderr, /^wsse:FailedCheck SSEK_SIGNATURE_INVALID: .*does not cover the ssek:SSEK header/m);
    const { rows } = await gateway.deps.db.query(`SELECT 1 FROM messages WHERE raw::text LIKE '%SOAP-CLIENT-2%'`);
    assert.equal(rows.length, 0, 'nothing recorded');
  });
});
