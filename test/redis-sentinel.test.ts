/**
 * Redis through Redis Sentinel, failed over twice under load: a gateway (worker and watch
 * roles, in this process, on PostgreSQL — several hosts share one PostgreSQL, the
 * embedded database admits one process) configured with `redis: { sentinels, name }`
 * only, files dropped into an inbox without pause, and meanwhile (1) a failover asked of
 * the sentinel (SENTINEL FAILOVER: the primary becomes a replica and its clients are cut)
 * and (2) the new primary killed with SIGKILL (the sentinel declares it down after 1 s and
 * promotes the last replica). Every document must be applied and answered exactly once,
 * none dead, and the calendar's schedulers must be on the last primary.
 */
import { test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { Queue } from 'bullmq';
import { connectRedis } from '../src/pipeline/queues.ts';
import { CALENDAR_QUEUE } from '../src/calendar/calendar.scheduler.ts';
import { dropFile, startTestGateway, waitFor, type TestGateway } from './support/harness.ts';
import { startRedisSentinelSet, type RedisSentinelSet } from './support/redis-sentinel.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';

const people = [PERSONS.anna, PERSONS.bertil, PERSONS.cecilia];
const DROP_EVERY_MS = 30;

let set: RedisSentinelSet;
let gateway: TestGateway;

beforeAll(async () => {
  set = await startRedisSentinelSet();
  gateway = await startTestGateway({
    roles: ['worker', 'watch'],
    clock: () => new Date(),
    settings: {
      redisUrl: undefined,
      redis: { sentinels: [set.sentinel], name: set.name },
      workers: { backoffMs: 100, attempts: 10, reconcileEveryMs: 500, reconcileAfterMs: 2000 },
    },
  });
}, 60_000);

afterAll(async () => {
  await gateway?.destroy();
  await set?.destroy();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The calendar's job scheduler ids as the current primary holds them, through the sentinel. */
async function calendarSchedulers(): Promise<string[]> {
  const connection = connectRedis({ sentinels: [set.sentinel], name: set.name, db: 0 });
  const queue = new Queue(CALENDAR_QUEUE, { connection, prefix: gateway.config.queuePrefix });
  try {
    return (await queue.getJobSchedulers(0, -1)).map((scheduler) => scheduler.key).sort();
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

test('documents flowing through a Sentinel failover and a killed primary are each answered exactly once, and the calendar keeps its schedule', async () => {
  const inbox = gateway.inbox('demo-employer');
  const outbox = gateway.outbox('demo-employer');
  const answers = async () => (await readdir(outbox)).filter((name) => name.startsWith('rs-'));
  const schedulersBefore = await calendarSchedulers();
  assert.ok(schedulersBefore.length > 0, 'the calendar has schedulers in Redis');
  const firstPrimary = await set.primaryPort();

  let dropped = 0;
  let dropping = true;
  const drops = (async () => {
    while (dropping) {
      const index = dropped;
      const bytes = salaryAdjustment({ messageId: `RS-${index}` }, [{ pin: people[index % people.length]!, date: '2026-12-01', salary: `${400_000 + index}.00` }]);
      await dropFile(inbox, `rs-${index}.xml`, bytes);
      dropped += 1;
      await pause(DROP_EVERY_MS);
    }
  })();
  let secondPrimary: number;
  let thirdPrimary: number;
  try {
    await pause(2000);
    let at = Date.now();
    secondPrimary = await set.failover();
    process.stdout.write(`# failover asked at ${dropped} dropped, ${(await answers()).length} answered: ${firstPrimary} -> ${secondPrimary} in ${Date.now() - at} ms\n`);
    await pause(2000);
    at = Date.now();
    thirdPrimary = await set.killPrimary();
    process.stdout.write(`# primary killed at ${dropped} dropped, ${(await answers()).length} answered: ${secondPrimary} -> ${thirdPrimary} in ${Date.now() - at} ms\n`);
    await pause(2000);
  } finally {
    dropping = false;
    await drops;
  }
  assert.notEqual(secondPrimary, firstPrimary);
  assert.notEqual(thirdPrimary, secondPrimary);

  const waiting = Date.now();
  await waitFor(async () => (await answers()).length >= dropped, `${dropped} answers`, 40_000);
  process.stdout.write(`# ${dropped} documents dropped; all answered ${Date.now() - waiting} ms after the last drop\n`);
  await pause(1000); // a second answer to any of them would have come by now
  const files = await answers();
  assert.equal(files.length, dropped, 'one answer per document');
  assert.equal(new Set(files.map((name) => name.split('.')[0])).size, dropped, 'each document answered exactly once');
  assert.equal((await readdir(inbox)).filter((name) => name.startsWith('rs-')).length, 0, 'nothing left in the inbox');

  const { db } = gateway.deps;
  const statuses = (await db.query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM messages WHERE external_id LIKE 'rs-%' GROUP BY status ORDER BY status`,
  )).rows;
  assert.deepEqual(statuses, [{ status: 'applied', n: dropped }], 'every document recorded once and applied, none dead or duplicate');
  const salaries = (await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM salaries s JOIN messages m ON m.id = s.message_id WHERE m.external_id LIKE 'rs-%'`,
  )).rows[0]!;
  assert.equal(salaries.n, dropped, 'one salary row per document');

  // The calendar's schedule is on the last primary (replicated, or put back after the failover).
  await waitFor(async () => JSON.stringify(await calendarSchedulers()) === JSON.stringify(schedulersBefore), 'the calendar schedulers on the new primary', 15_000);
}, 120_000);
