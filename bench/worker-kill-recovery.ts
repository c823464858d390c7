/**
 * `npm run bench -- worker-kill-recovery`: how long a sender's documents wait after the
 * worker process holding some of them is killed (SIGKILL) and another is started.
 *
 * One sender (demo-employer) sends a document every FEED_EVERY_MS through an in-process
 * intake (no workers of its own); `depot-gateway worker` processes apply them. Each
 * round starts another worker and, once it is ready, kills (SIGKILL) the one that was
 * working, while jobs are active. The documents the dead worker held keep their locks
 * until these run out, and every later document of the sender waits behind them (order
 * by sender). The figures, from the kill (messages.updated_at of the apply, PostgreSQL's
 * clock, the same machine's): when every document received before the kill was applied,
 * and when the first one received after it was. The new worker is started before the
 * kill so that its start (spawn to its "schema validation ready" log line, shown apart)
 * does not hide the wait for the locks: where no other worker runs, a killed worker's
 * documents wait for the longer of the two. The sender keeps at most IN_FLIGHT
 * documents unfinished, so that a worker slowed by a loaded machine is not buried in a
 * backlog. ROUNDS kills with the settings of now (workers.lockDurationMs 5 s renewed every
 * second, stalledIntervalMs 1 s) and the same with those before (15 s, 5 s).
 * Afterwards every document must have been applied once (one salary row each) and
 * answered by one response.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildIsCurrent } from '../bin/build-state.js';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { machine } from './report.ts';
import { createDatabase, envNumber, REDIS_URL, round, runBenchmark, withClient, writeConfig } from './support.ts';
import { startTestGateway, testSettings } from '../test/support/harness.ts';
import { runCli, type GatewayProcess } from '../test/support/processes.ts';
import { salaryAdjustment, PERSONS } from '../test/support/documents.ts';

const ROUNDS = envNumber('BENCH_ROUNDS', 3);
const FEED_EVERY_MS = envNumber('BENCH_FEED_EVERY_MS', 40);
/** The sender waits while this many of its documents are unfinished, so a slow (loaded) worker is not buried under a backlog. */
const IN_FLIGHT = envNumber('BENCH_IN_FLIGHT', 40);
const SETTINGS = [
  { name: 'now (lock 5 s renewed every 1 s, stalled check every 1 s)', workers: {} },
  { name: 'before (lock 15 s, stalled check every 5 s)', workers: { lockDurationMs: 15_000, stalledIntervalMs: 5_000 } },
] as const;
const people = [PERSONS.anna, PERSONS.bertil, PERSONS.cecilia];
const log = (text: string) => process.stdout.write(`${text}\n`);

await runBenchmark('worker-kill-recovery', async (resources) => {
  resources.database = await createDatabase();
  const databaseUrl = resources.database.url;
  const producer = await startTestGateway({ roles: [], database: resources.database, keepDatabase: true, settings: { redisUrl: REDIS_URL } });
  resources.prefix = producer.config.queuePrefix;
  resources.temp = await mkdtemp(join(tmpdir(), 'dg-bench-kill-'));
  const query = async (sql: string, parameters: unknown[] = []) =>
    withClient(databaseUrl, async (client) => (await client.query<Record<string, string | null>>(sql, parameters)).rows[0] ?? {});
  const count = async (sql: string, parameters: unknown[] = []) => Number((await query(sql, parameters)).n);
  const workers: GatewayProcess[] = [];
  log(`machine: ${JSON.stringify(machine())}`);
  log(`one sender, a document every ${FEED_EVERY_MS} ms while fewer than ${IN_FLIGHT} are unfinished; ${ROUNDS} kills per setting; ` +
    `the workers run ${buildIsCurrent(PROJECT_ROOT) ? 'the compiled build' : 'the sources through tsx (the build is older than a source file)'}\n`);

  let sent = 0;
  let feeding = true;
  const feed = (async () => {
    while (feeding) {
      if ((await count(`SELECT count(*)::text AS n FROM messages WHERE status IN ('received', 'validated')`)) >= IN_FLIGHT) {
        await sleep(FEED_EVERY_MS);
        continue;
      }
      const index = sent;
      sent += 1;
      const bytes = Buffer.from(salaryAdjustment({ messageId: `KILL-${index}` }, [{ pin: people[index % people.length]!, date: '2026-12-01', salary: `${500_000 + index}.00` }]));
      await producer.intake.receive({
        channel: 'folder', counterpartyId: 'demo-employer', externalId: `kill-${index}.xml`, receivedAt: new Date(), content: { bytes }, metadata: { fileName: `kill-${index}.xml` },
      });
      await sleep(FEED_EVERY_MS);
    }
  })();

  const results: { setting: string; recoveryMs: number[]; backlogMs: number[]; startMs: number[]; heldJobs: number[] }[] = [];
  try {
    for (const setting of SETTINGS) {
      const configFile = await writeConfig(resources.temp, testSettings(producer.dataDir, {
        databaseUrl, redisUrl: REDIS_URL, queuePrefix: producer.config.queuePrefix, logLevel: 'info', logFormat: 'json',
        workers: { backoffMs: 100, attempts: 20, ...setting.workers },
      }));
      const start = () => {
        const worker = runCli(['worker', '--config', configFile], { LOG_LEVEL: 'info' });
        workers.push(worker);
        const spawned = Date.now();
        const ready = (async () => {
          while (!worker.output().includes('schema validation ready')) {
            if (worker.child.exitCode !== null) throw new Error(`the worker exited:\n${worker.output()}`);
            await sleep(20);
          }
          return Date.now() - spawned;
        })();
        return { worker, ready };
      };
      const figures = { setting: setting.name, recoveryMs: [] as number[], backlogMs: [] as number[], startMs: [] as number[], heldJobs: [] as number[] };
      let current = start();
      await current.ready;
      for (let kill = 0, tries = 0; kill < ROUNDS && tries < ROUNDS * 4; tries += 1) {
        const next = start();
        const startMs = await next.ready;
        // Let it work a while, then kill it while it holds jobs.
        const appliedBefore = await count(`SELECT count(*)::text AS n FROM messages WHERE status = 'applied'`);
        while ((await count(`SELECT count(*)::text AS n FROM messages WHERE status = 'applied'`)) < appliedBefore + 20) await sleep(50);
        for (let active = 0, polls = 0; active === 0 && polls < 2000; polls += 1) active = (await producer.queues!.counts()).validate.active ?? 0;
        current.worker.child.kill('SIGKILL');
        const killedAt = new Date();
        await current.worker.exited;
        current = next;
        // The new worker finishes its own jobs within moments; what is still active then is the dead worker's, under its locks.
        await sleep(500);
        const counts = await producer.queues!.counts();
        const held = (counts.validate.active ?? 0) + (counts.apply.active ?? 0);
        if (held === 0) {
          log(`${setting.name}: the killed worker held no job at the kill; the round is run again`);
          continue;
        }
        kill += 1;
        const receivedBefore = await count(`SELECT count(*)::text AS n FROM messages WHERE received_at < $1`, [killedAt]);
        let recoveryMs: number | undefined;
        let backlogMs: number | undefined;
        while (recoveryMs === undefined || backlogMs === undefined) {
          const row = await query(
            `SELECT (extract(epoch FROM min(updated_at) FILTER (WHERE status = 'applied' AND received_at > $1)) * 1000)::text AS first,
                    count(*) FILTER (WHERE received_at < $1 AND status = 'applied')::text AS done,
                    (extract(epoch FROM max(updated_at) FILTER (WHERE received_at < $1 AND status = 'applied')) * 1000)::text AS last
               FROM messages`, [killedAt]);
          if (row.first) recoveryMs = Number(row.first) - killedAt.getTime();
          if (Number(row.done) === receivedBefore && row.last) backlogMs = Math.max(0, Number(row.last) - killedAt.getTime());
          await sleep(50);
        }
        figures.recoveryMs.push(Math.round(recoveryMs));
        figures.backlogMs.push(Math.round(backlogMs));
        figures.startMs.push(startMs);
        figures.heldJobs.push(held);
        log(`${setting.name}, kill ${kill}: the dead worker held ${held} job(s); every document received before it applied ${(backlogMs / 1000).toFixed(1)} s after it, ` +
          `the first received after it ${(recoveryMs / 1000).toFixed(1)} s after it; the new worker had been ready ${(startMs / 1000).toFixed(1)} s after its spawn`);
      }
      current.worker.child.kill('SIGTERM');
      await current.worker.exited;
      results.push(figures);
    }
  } finally {
    feeding = false;
    await feed;
  }

  // The rest applied by one last worker, then every document checked once.
  const configFile = await writeConfig(resources.temp, testSettings(producer.dataDir, { databaseUrl, redisUrl: REDIS_URL, queuePrefix: producer.config.queuePrefix }));
  const last = runCli(['worker', '--config', configFile]);
  workers.push(last);
  const deadline = Date.now() + 180_000;
  while ((await count(`SELECT count(*)::text AS n FROM responses WHERE delivered_at IS NOT NULL`)) < sent && Date.now() < deadline) await sleep(250);
  last.child.kill('SIGTERM');
  await last.exited;
  for (const worker of workers) if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');

  const applied = await count(`SELECT count(*)::text AS n FROM messages WHERE status = 'applied' AND external_id LIKE 'kill-%'`);
  const rows = await query(`SELECT count(*)::text AS n, count(DISTINCT message_id)::text AS messages FROM salaries WHERE message_id <> 'demo-seed'`);
  const delivered = await count(`SELECT count(*)::text AS n FROM responses WHERE delivered_at IS NOT NULL`);
  const exactlyOnce = applied === sent && Number(rows.n) === sent && Number(rows.messages) === sent && delivered === sent;
  log(`\n${sent} documents: ${applied} applied, ${rows.n} salary rows for ${rows.messages} messages, ${delivered} responses delivered: ${exactlyOnce ? 'each once' : 'WRONG'}`);
  log('\nsetting | every document received before the kill applied | the first received after it applied | a worker ready after its spawn | jobs the dead worker held');
  for (const figures of results) {
    const range = (values: number[]) => `${round(Math.min(...values) / 1000)}–${round(Math.max(...values) / 1000)} s`;
    log(`${figures.setting} | ${range(figures.backlogMs)} | ${range(figures.recoveryMs)} | ${range(figures.startMs)} | ${figures.heldJobs.join(', ')}`);
  }
  await producer.destroy();
  return exactlyOnce;
});
