/**
 * The calendar's job schedulers outlive an empty Redis: a private redis-server is
 * killed and started again empty (as a restart without persistence leaves it), and
 * later emptied under a live connection; each time the schedulers are put back and the
 * next 08:31 deadline check and the debit run of the day still happen, the ones whose
 * time passed meanwhile by catch-up. Real PostgreSQL (demo ledger) and redis-server;
 * the gateway's clock is the test's, the schedulers fire every second.
 */
import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { Queue } from 'bullmq';
import { pino } from 'pino';
import { calendarJobs } from '../src/calendar/calendar-jobs.ts';
import { CalendarScheduler, CALENDAR_QUEUE } from '../src/calendar/calendar.scheduler.ts';
import { runDepsFrom } from '../src/calendar/debit-run.ts';
import { expectedCustodians } from '../src/calendar/report-deadlines.job.ts';
import { connectRedis } from '../src/pipeline/queues.ts';
import { startTestGateway, waitFor } from './support/harness.ts';
import { startRedisServer } from './support/processes.ts';

const silent = pino({ level: 'silent' });

test('after Redis restarts empty the schedulers are back, and the next deadline check and debit run happen', async () => {
  const gateway = await startTestGateway({ roles: [], inline: true });
  const redis = await startRedisServer();
  const connection = connectRedis(redis.url);
  // Wednesday 29 April 2026, 20:00 in Stockholm: the Q1 debit run and the 08:31 check fall due tomorrow.
  let now = new Date('2026-04-29T18:00:00Z');
  const { db } = gateway.deps;
  const jobs = calendarJobs({
    custodians: expectedCustodians(gateway.config.counterparties), mailSender: undefined, operationsAddress: undefined, log: silent,
    runs: runDepsFrom(gateway.config, gateway.deps.scheduler, silent),
  }).map((job) => ({ ...job, patterns: ['* * * * * *'] }));
  const scheduler = new CalendarScheduler({ connection, prefix: gateway.config.queuePrefix, db, jobs, clock: () => now, log: silent, checkEveryMs: 300 });
  const queue = new Queue(CALENDAR_QUEUE, { connection, prefix: gateway.config.queuePrefix });
  queue.on('error', () => undefined); // refused while Redis is down: expected
  const ran = async (job: string, period: string) =>
    (await db.query('SELECT 1 FROM calendar_runs WHERE job = $1 AND period = $2', [job, period])).rows.length > 0;
  const schedulers = async () => (await queue.getJobSchedulers(0, -1)).length;
  try {
    await scheduler.start();
    await waitFor(() => ran('debit-runs', '2026-Q1').then((done) => !done && ran('report-deadlines', '2026-04-29 10:00')), 'the catch-up at start');
    assert.equal(await schedulers(), jobs.length);

    await redis.kill();
    await redis.start();
    await waitFor(async () => (await schedulers()) === jobs.length, 'the schedulers put back after the reconnection');
    now = new Date('2026-04-30T06:32:00Z'); // Thursday 08:32 in Stockholm
    await waitFor(() => ran('report-deadlines', '2026-04-30 08:31'), 'the 08:31 check');
    await waitFor(() => ran('debit-runs', '2026-Q1'), 'the Q1 debit run');
    assert.equal(await ran('report-deadlines', '2026-04-30 10:00'), false, 'the 10:00 check is not due yet');

    // Emptied without the connection noticing: the periodic check puts them back, and the
    // 10:00 check that fell due meanwhile is caught up.
    await connection.flushall();
    now = new Date('2026-04-30T08:05:00Z');
    await waitFor(() => ran('report-deadlines', '2026-04-30 10:00'), 'the 10:00 check after the periodic check');
    assert.equal(await schedulers(), jobs.length);
  } finally {
    await scheduler.close();
    await queue.close();
    connection.disconnect();
    await redis.kill();
    await gateway.destroy();
  }
});
