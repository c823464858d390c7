/**
 * HTTP requests are logged quietly: each at debug, a client error at info, a server
 * error or a slow answer at warn, and a summary line a period at info. A gateway's api
 * listener on PostgreSQL and Redis, and a Fastify app with the same hooks and a route
 * that is really slow, answering injected requests.
 */
import { test, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify from 'fastify';
import { pino } from 'pino';
import { logRequests, quietRequestLogging } from '../src/http/request-log.ts';
import { startTestGateway, type TestGateway } from './support/harness.ts';

interface Line { level: number; msg: string; reqId?: string; status?: number; ms?: number; requests?: number; byStatus?: Record<string, number>; slow?: number; slowest?: string }

function capture(level: string): { lines: Line[]; log: pino.Logger } {
  const lines: Line[] = [];
  const sink = new Writable({ write(chunk: Buffer, _encoding, done) { lines.push(JSON.parse(chunk.toString()) as Line); done(); } });
  return { lines, log: pino({ level }, sink) };
}

const INFO = 30;
let gateway: TestGateway | undefined;
afterAll(async () => {
  await gateway?.destroy();
});

test("a gateway's api writes no line at info for an ordinary request, one for a refused one", async () => {
  const { lines, log } = capture('debug');
  gateway = await startTestGateway({ roles: ['api'], log });
  const before = lines.length;
  for (let i = 0; i < 20; i++) assert.equal((await gateway.http!.inject({ url: '/healthz' })).statusCode, 200);
  for (let i = 0; i < 2; i++) assert.equal((await gateway.http!.inject({ url: '/api/messages' })).statusCode, 401);
  const requests = lines.slice(before).filter((line) => line.reqId !== undefined);
  const atInfo = requests.filter((line) => line.level >= INFO);
  assert.deepEqual(atInfo.map((line) => [line.level, line.status, line.msg]), [[INFO, 401, 'GET answered 401'], [INFO, 401, 'GET answered 401']]);
  assert.equal(requests.filter((line) => line.level < INFO && line.msg === 'request answered').length, 20, 'each ordinary request at debug');
  assert.equal(lines.some((line) => /incoming request|request completed/.test(line.msg)), false, "no Fastify per-request lines");
}, 120_000);

test('a slow answer and a server error at warn, and a summary line each period at info', async () => {
  const { lines, log } = capture('info');
  const app = Fastify({ logController: quietRequestLogging() });
  logRequests(app, log, { slowMs: 200, summaryEveryMs: 3000 });
  app.get('/quick', async () => 'ok');
  app.get('/slow', async () => {
    await sleep(300);
    return 'late';
  });
  app.get('/broken', async () => {
    throw new Error('broken on purpose');
  });
  try {
    // Aligned just after a summary, so all six requests fall in one period.
    await sleep(50);
    for (let i = 0; i < 4; i++) await app.inject({ url: '/quick' });
    await app.inject({ url: '/slow' });
    await app.inject({ url: '/broken' });
    const requests = lines.filter((line) => line.reqId !== undefined);
    assert.deepEqual(requests.map((line) => [line.level, line.status]), [[40, 200], [40, 500]]);
    assert.match(requests[0]!.msg, /^GET answered in \d+ ms \(slow: 200 ms or more\)$/);
    assert.ok(requests[0]!.ms! >= 290, `the slow answer took ${requests[0]!.ms} ms`);

    const summary = await (async () => {
      for (let waited = 0; waited < 8000; waited += 50) {
        const found = lines.find((line) => line.requests !== undefined);
        if (found) return found;
        await sleep(50);
      }
      return undefined;
    })();
    assert.ok(summary, 'a summary line');
    assert.equal(summary.level, INFO);
    assert.equal(summary.requests, 6);
    assert.deepEqual(summary.byStatus, { '2xx': 5, '5xx': 1 });
    assert.equal(summary.slow, 1);
    assert.equal(summary.slowest, 'GET /slow');
    assert.match(summary.msg, /^HTTP: 6 requests answered in the last 3 s$/);
    // A period without requests writes nothing.
    await sleep(3300);
    assert.equal(lines.filter((line) => line.requests !== undefined).length, 1);
  } finally {
    await app.close();
  }
});
