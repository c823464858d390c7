/**
 * No access token and no bank account number reaches the log. A gateway runs the api
 * role as an operator runs it (`depot-gateway api`, a child process, LOG_LEVEL=debug
 * so the most is logged, JSON lines, real PostgreSQL), an advisor firm gets a token at
 * POST /oauth/token and calls the withdrawal routes, whose paths carry the bank account
 * as the customer number — with the token in the Authorization header, and in an
 * `?access_token=` query parameter, which the gateway refuses but Fastify logs with
 * the URL. When the gateway has stopped, neither the token nor any account's digits
 * after its clearing number appear in its output; the URLs are there, each account
 * masked to its clearing number (`5000*******`) and the query's token dropped
 * (`access_token=[dropped]`).
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { advisorFirmApi } from './support/bankid.ts';
import { createTestDatabase, deleteQueues, testSettings, waitFor, type TestDatabase } from './support/harness.ts';
import { freePort, runCli, writeConfigFile, type GatewayProcess } from './support/processes.ts';

const CUSTOMER = '198506152381';
/** SEB, clearing 5000; the accounts of withdrawal-accounts.test.ts. */
const ACCOUNT = '50001234560';
const OTHER_ACCOUNT = '83279931432489';
const STAFF = `Basic ${Buffer.from('staff:test-password').toString('base64')}`;

describe('access tokens and bank accounts in the log', () => {
  let database: TestDatabase;
  let folder: string;
  let queuePrefix: string;
  let port: number;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    database = await createTestDatabase();
    folder = await mkdtemp(join(tmpdir(), 'dg-secret-logs-'));
    port = await freePort();
    const settings = testSettings(join(folder, 'data'), { databaseUrl: database.url, port, logLevel: 'debug', api: await advisorFirmApi() });
    queuePrefix = settings.queuePrefix as string;
    const config = await writeConfigFile(folder, settings);
    gateway = runCli(['api', '--config', config], { LOG_LEVEL: 'debug', LOG_FORMAT: 'json' });
    await waitFor(() => gateway.output().includes('"msg":"where to look"'), 'the gateway to start', 60_000);
  });
  afterAll(async () => {
    if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
    await database.drop();
    await deleteQueues(queuePrefix);
    await rm(folder, { recursive: true, force: true });
  });

  const call = (path: string, init: RequestInit = {}) => fetch(`http://127.0.0.1:${port}${path}`, init);

  test('withdrawal routes called with a token in the header and in the URL; the log holds neither the token nor the accounts', async () => {
    const power = await call('/api/powers-of-attorney', {
      method: 'POST', headers: { authorization: STAFF, 'content-type': 'application/json' },
      body: JSON.stringify({ holderOrganisationNumber: '5565555553', customerId: CUSTOMER, kind: 'intermediation', validFrom: '2020-01-01' }),
    });
    assert.equal(power.status, 201, await power.text());
    const issued = await call('/oauth/token', {
      method: 'POST', headers: { authorization: `Basic ${Buffer.from('firm:firm-secret').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    assert.equal(issued.status, 200);
    const token = ((await issued.json()) as { access_token: string }).access_token;
    const bearer = { authorization: `Bearer ${token}` };
    const json = { ...bearer, 'content-type': 'application/json' };

    // A token in the URL is refused (only the header counts) …
    const inUrl = await call(`/Customer/${ACCOUNT}/WithdrawalAccount?access_token=${token}`);
    assert.equal(inUrl.status, 401);
    // … and with the header as well, the header is what the route is answered by.
    const registered = await call(`/Customer/${ACCOUNT}/WithdrawalAccount?access_token=${token}`, { method: 'POST', headers: json, body: JSON.stringify({ customerId: CUSTOMER }) });
    assert.equal(registered.status, 202, await registered.text());
    const registrations = await call(`/Customer/${ACCOUNT}/WithdrawalAccount`, { headers: bearer });
    assert.equal(registrations.status, 200);
    assert.equal(((await registrations.json()) as { accountNumber: string }[])[0]?.accountNumber, ACCOUNT, 'the answer names the account: it is not a log');
    const information = await call(`/Customer/${ACCOUNT}/WithdrawalInformation?access_token=${token}`, { headers: bearer });
    assert.equal(information.status, 404, 'pending, not validated: nothing to withdraw to yet');
    const other = await call(`/Customer/${OTHER_ACCOUNT}/WithdrawalInformation`, { headers: bearer });
    assert.equal(other.status, 404);
    const request = await call('/Insurance/withdrawalrequest', { method: 'POST', headers: json, body: JSON.stringify({ insuranceNumber: 'INS-200001', amount: '12500.00', accountNumber: ACCOUNT }) });
    assert.ok([404, 422].includes(request.status), `the withdrawal request answered ${request.status}`);

    gateway.child.kill('SIGTERM');
    assert.equal(await gateway.exited, 0, gateway.output().slice(-2000));
    const output = gateway.output();
    assert.ok(output.split('\n').length > 12, `a debug log was written (${output.split('\n').length} lines)`);

    const [header, claims, signature] = token.split('.');
    const secrets = { token, 'its claims': claims!, 'its signature': signature!, [ACCOUNT]: ACCOUNT, [OTHER_ACCOUNT]: OTHER_ACCOUNT, "an account's digits after the clearing number": '1234560' };
    assert.deepEqual(leaks(output, secrets), [], 'no token or bank account in the log');
    assert.ok(header && !output.includes(`${header}.`), 'not even the start of the token');
    for (const masked of [
      `/Customer/5000*******/WithdrawalAccount?access_token=[dropped]"`,
      '/Customer/5000*******/WithdrawalAccount"',
      '/Customer/5000*******/WithdrawalInformation?access_token=[dropped]"',
      '/Customer/8327**********/WithdrawalInformation"',
      '/Insurance/withdrawalrequest"',
    ]) assert.ok(output.includes(masked), `the log has the request URL ${masked}`);
  });
});

/** Log lines holding any of the secrets, named. */
function leaks(output: string, secrets: Record<string, string>): string[] {
  return output.split('\n').flatMap((line) => Object.entries(secrets).filter(([, secret]) => line.includes(secret)).map(([name]) => `${name}: ${line.slice(0, 400)}`));
}
