/**
 * `npm run bench -- rest`: GET /InsuranceApplication/{id} through the gateway's REST
 * API (bearer token verified, the access policy asked, the application, its sign case
 * and its history read, the answer serialised by its schema) against a bare Fastify + pg
 * primary-key lookup on the same table (bench/bare-lookup.server.ts), both driven by
 * autocannon from this process at BENCH_CONNECTIONS (100) for BENCH_SECONDS (10) each,
 * after a warm-up of BENCH_WARMUP_SECONDS (3), in BENCH_ROUNDS (2) interleaved rounds.
 *
 * Targets: ours ≥ 70 % of the bare server's requests/s, p99 under 20 ms at 100
 * connections (the advisor API issue); ≥ 90 % of its requests/s and a p99 at most 1.1 ×
 * its p99 (issue 33). The connections are shared among BENCH_CLIENTS (25) API
 * clients of the advisor firm, each with its own token, since one client may have at most
 * `api.limits.concurrentRequests` (8) requests in flight; their rate limit is set out of
 * the way, so every request is served and the limiter's bookkeeping is measured with it. Prints both figures and the ratio, and for each round the CPU a
 * request cost the server, PostgreSQL and autocannon; every answer must be 200.
 *
 * The application read is an issued one, as most are: submitted, then signed by its
 * policyholder through the sign case (Sign, Collect) with the gateway's BankID adapter
 * speaking mutual TLS to the local BankID server this process starts, the person's
 * approval played through its control API, before anything is measured.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { hashSecret } from '../src/config/secret-hash.ts';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { buildIsCurrent } from '../bin/build-state.js';
import { startBankIdTestServer, type BankIdTestServer } from '../src/bankid/bankid-test-server.ts';
import type { LocalPerson } from '../src/bankid/local-bankid-orders.ts';
import { CpuSampler, type CpuFigures } from './cpu-sampler.ts';
import { calibrate, machine } from './report.ts';
import { createDatabase, envNumber, freePort, REDIS_URL, runBenchmark, runMigrate, startGateway, writeConfig } from './support.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const settings = {
  connections: Math.round(envNumber('BENCH_CONNECTIONS', 100)),
  seconds: envNumber('BENCH_SECONDS', 10),
  warmupSeconds: envNumber('BENCH_WARMUP_SECONDS', 3),
  rounds: Math.round(envNumber('BENCH_ROUNDS', 2)),
  clients: Math.round(envNumber('BENCH_CLIENTS', 25)),
};
const log = (text: string) => process.stdout.write(`[bench rest] ${text}\n`);
/** The demo's Anna Andersson, policyholder and insured of the application read. */
const ANNA: LocalPerson = { personalNumber: '197001011233', givenName: 'Anna', surname: 'Andersson' };

interface Figures { requestsPerSecond: number; p50: number; p99: number; non2xx: number; errors: number; requests: number; cpu?: CpuFigures }

/** Drives `url` with each connection sending the headers it is given in turn (the bare server: none). */
async function drive(url: string, headers: readonly Record<string, string>[], seconds: number, sampler?: CpuSampler): Promise<Figures> {
  sampler?.begin();
  let connection = 0;
  const setupClient = (client: { setHeaders(headers: Record<string, string>): void }) => {
    if (headers.length > 0) client.setHeaders(headers[connection++ % headers.length]!);
  };
  const result = await autocannon({ url, connections: settings.connections, duration: seconds, setupClient } as autocannon.Options);
  const cpu = sampler?.end();
  return {
    requestsPerSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors + result.timeouts,
    requests: result.requests.total, ...(cpu ? { cpu } : {}),
  };
}

/**
 * CPU per request of each party, in microseconds: the server measured (the gateway, or the
 * bare server), PostgreSQL, autocannon in this process, the rest of the machine. On two
 * shared cores these say where a request's cost lies when the wall-clock figures move.
 */
function cpuPerRequest(figures: Figures): string {
  if (!figures.cpu) return '';
  const perRequest = (seconds: number) => Math.round((1_000_000 * seconds) / Math.max(figures.requests, 1));
  const { gateway, postgres, 'bench client': client, ...rest } = figures.cpu.cpuSeconds;
  const others = Object.values(rest).reduce((sum, seconds) => sum + seconds, 0);
  return `; CPU per request: server ${perRequest(gateway)} µs, postgres ${perRequest(postgres)} µs, autocannon ${perRequest(client)} µs, other ${perRequest(others)} µs (machine ${figures.cpu.machineBusyPercent} % busy)`;
}

await runBenchmark('rest', async (resources) => {
  const calibration = calibrate();
  const host = machine(calibration);
  log(`calibration: ${calibration} ms for a fixed piece of work; ${host.cpu}, ${host.cores} cores, ${host.os}, node ${host.node}`);
  resources.temp = await mkdtemp(join(tmpdir(), 'dg-bench-rest-'));
  resources.database = await createDatabase();
  const port = await freePort();
  const barePort = await freePort();
  resources.prefix = `dgbenchrest${process.pid}`;
  const bankid = await startBankIdTestServer({ certificateDir: join(resources.temp, 'bankid-test'), people: [ANNA] });
  const secret = 'bench-firm-secret';
  const config = await writeConfig(resources.temp, {
    demo: true, dataDir: join(resources.temp, 'data'), port, logLevel: 'warn', databaseUrl: resources.database.url, redisUrl: REDIS_URL, queuePrefix: resources.prefix,
    counterparties: [{ id: 'demo-custodian', name: 'Demo Custodian AB', organisationNumber: '5560000001', role: 'custodian', messageTypes: ['custodian-reporting'] }],
    bankid: bankid.settings,
    api: {
      tokenRequestsPerMinute: 1000,
      clients: await Promise.all(Array.from({ length: settings.clients }, async (_, index) => ({
        id: `bench-firm-${index}`, kind: 'advisor-firm', organisationNumber: '5565555553', secretHash: await hashSecret(secret),
        limits: { requestsPerSecond: 100_000, burst: 100_000 },
      }))),
    },
  });
  runMigrate(config);
  // Three minutes to be ready: a start on two shared cores under other work can take over one.
  resources.gateway = await startGateway(config, port, 180_000);
  // A source saved after the build (someone else editing the tree) makes the gateway run its
  // sources through tsx, which costs a request several times its own work.
  if (!buildIsCurrent(PROJECT_ROOT)) log('WARNING: a source changed after the build, so the gateway may run its sources through tsx: these figures are not of the compiled build');
  const base = `http://127.0.0.1:${port}`;
  const tokens = await Promise.all(Array.from({ length: settings.clients }, async (_, index) => ((await (await fetch(`${base}/oauth/token`, {
    method: 'POST', headers: { authorization: `Basic ${Buffer.from(`bench-firm-${index}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials',
  })).json()) as { access_token: string }).access_token));
  const applicationId = await issuedApplication(base, tokens[0]!, bankid).finally(() => bankid.close());
  log(`application ${applicationId} submitted, signed by the policyholder and issued`);

  const bare: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(HERE, 'bare-lookup.server.ts')], {
    env: { ...process.env, DATABASE_URL: resources.database.url, PORT: String(barePort) }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await once(bare.stdout!, 'data');
    const targets = {
      bare: { url: `http://127.0.0.1:${barePort}/InsuranceApplication/${applicationId}`, headers: [] },
      ours: { url: `${base}/InsuranceApplication/${applicationId}`, headers: tokens.map((each) => ({ authorization: `Bearer ${each}` })) },
    };
    const runs: Record<'bare' | 'ours', Figures[]> = { bare: [], ours: [] };
    // The sampler counts the server being driven as its 'gateway' party.
    const serverPids = { bare: bare.pid === undefined ? [] : [bare.pid], ours: resources.gateway.pids };
    let driven: 'bare' | 'ours' = 'bare';
    const sampler = new CpuSampler(() => serverPids[driven]);
    for (let round = 1; round <= settings.rounds; round += 1) {
      for (const name of ['bare', 'ours'] as const) {
        driven = name;
        await drive(targets[name].url, targets[name].headers, settings.warmupSeconds);
        const figures = await drive(targets[name].url, targets[name].headers, settings.seconds, sampler);
        runs[name].push(figures);
        log(`round ${round} ${name}: ${Math.round(figures.requestsPerSecond)} requests/s, p50 ${figures.p50} ms, p99 ${figures.p99} ms, non-2xx ${figures.non2xx}, errors ${figures.errors}${cpuPerRequest(figures)}`);
      }
    }
    sampler.stop();
    const mean = (list: Figures[], key: 'requestsPerSecond') => list.reduce((sum, f) => sum + f[key], 0) / list.length;
    const ratio = mean(runs.ours, 'requestsPerSecond') / mean(runs.bare, 'requestsPerSecond');
    const p99 = Math.max(...runs.ours.map((f) => f.p99));
    log(`bare Fastify + pg: ${Math.round(mean(runs.bare, 'requestsPerSecond'))} requests/s, p99 ${Math.max(...runs.bare.map((f) => f.p99))} ms`);
    log(`depot-gateway:     ${Math.round(mean(runs.ours, 'requestsPerSecond'))} requests/s, p99 ${p99} ms`);
    const bareP99 = Math.max(...runs.bare.map((f) => f.p99));
    log(`ratio ${(ratio * 100).toFixed(1)} % (target ≥ 70 %: ${ratio >= 0.7 ? 'MET' : 'NOT MET'}; ≥ 90 %: ${ratio >= 0.9 ? 'MET' : 'NOT MET'}); p99 ${p99} ms (target < 20 ms: ${p99 < 20 ? 'MET' : 'NOT MET'}), ${(p99 / bareP99).toFixed(2)} × the bare p99 (target ≤ 1.1 ×: ${p99 <= 1.1 * bareP99 ? 'MET' : 'NOT MET'})`);
    const wrong = [...runs.bare, ...runs.ours].reduce((sum, f) => sum + f.non2xx + f.errors, 0);
    if (wrong > 0) log(`wrong answers: ${wrong} not 200`);
    return wrong === 0;
  } finally {
    bare.kill('SIGTERM');
  }
});

/**
 * Submits Anna's application, has her sign it (Sign; she approves at the local BankID
 * server; Collect) and checks that it was issued: its id.
 */
async function issuedApplication(base: string, token: string, bankid: BankIdTestServer): Promise<string> {
  const call = async (method: 'GET' | 'POST', path: string, body?: object) => {
    const response = await fetch(`${base}${path}`, {
      method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (response.status !== 200 && response.status !== 201) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const submitted = await call('POST', '/InsuranceApplication', {
    productId: 'KF-DEPA', advisorCode: 'ADV-001', policyholder: { id: ANNA.personalNumber }, insured: { id: ANNA.personalNumber }, premium: { monthly: '1000' },
    funds: [{ isin: 'SE000DEPA010', percent: 100 }], custodianId: 'demo-custodian', beneficiary: { choice: 'standard' }, coverages: { repaymentProtection: true, premiumWaiver: false },
  });
  const { applicationId, signCaseId, status } = submitted as { applicationId: string; signCaseId: string; status: string };
  if (status !== 'awaiting-signature') throw new Error(`the application was not awaiting signature: ${JSON.stringify(submitted)}`);
  const { orderRef } = await call('POST', `/SignCase/${signCaseId}/Sign`, { role: 'policyholder', personalNumber: ANNA.personalNumber, endUserIp: '127.0.0.1' }) as { orderRef: string };
  bankid.control.signThrough(orderRef, ANNA);
  const collected = await call('POST', `/SignCase/${signCaseId}/Collect`, { orderRef });
  if (collected.status !== 'complete') throw new Error(`the signature was not collected: ${JSON.stringify(collected)}`);
  const read = await call('GET', `/InsuranceApplication/${applicationId}`) as { status: string };
  if (read.status !== 'issued') throw new Error(`the signed application was not issued: ${JSON.stringify(read)}`);
  return applicationId;
}
