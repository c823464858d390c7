/**
 * Metrics of the processes without the api role, as an operator runs them apart
 * (`worker`, `watch`, `api`): with `metricsPort` set, the worker-and-watch gateway serves
 * GET /metrics on that port over real HTTP — its own received and applied counters and
 * stage times, which the api process never sees — behind the staff users' HTTP Basic;
 * the api process serves its metrics on its own port and opens no second listener.
 * Real Redis and PostgreSQL.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { dropFile, startTestGateway, waitFor, type TestGateway } from './support/harness.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';

const basic = (password: string) => `Basic ${Buffer.from(`staff:${password}`).toString('base64')}`;

describe('the metrics listener of a worker process', () => {
  let processing: TestGateway;
  let api: TestGateway;
  let url: string;

  beforeAll(async () => {
    processing = await startTestGateway({ roles: ['worker', 'watch'], settings: { metricsPort: 0 } });
    const address = processing.metricsHttp?.server.address() as AddressInfo | null;
    assert.ok(address, 'the worker process listens for scrapes');
    url = `http://127.0.0.1:${address.port}/metrics`;
    api = await startTestGateway({ roles: ['api'], database: processing.database!, settings: { metricsPort: 0 } });
  });
  afterAll(async () => {
    await api?.destroy();
    await processing?.destroy();
  });

  const scrape = async (): Promise<string> => {
    const answer = await fetch(url, { headers: { authorization: basic('test-password') } });
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    return answer.text();
  };
  const valueOf = (text: string, series: string): number => {
    const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
    return line ? Number(line.slice(series.length + 1)) : 0;
  };

  test('without credentials or with a wrong password the scrape is refused, and nothing but /metrics is served there', async () => {
    for (const headers of [{}, { authorization: basic('not-the-password') }] as Record<string, string>[]) {
      const answer = await fetch(url, { headers });
      assert.equal(answer.status, 401);
      assert.equal(((await answer.json()) as { code: string }).code, 'STAFF_AUTHENTICATION_REQUIRED');
    }
    const console = await fetch(url.replace('/metrics', '/console'), { headers: { authorization: basic('test-password') } });
    assert.equal(console.status, 404);
  });

  test("a document the worker process received and applied moves that process's counters and stage times; the api process's stay still", async () => {
    const labels = 'type="SalaryAdjustment",counterparty="demo-employer"';
    const received = `depot_gateway_documents_received_total{${labels},channel="folder"}`;
    const applied = `depot_gateway_documents_finished_total{${labels},status="applied"}`;
    const validateJobs = 'depot_gateway_stage_job_duration_seconds_count{stage="validate"}';
    const before = await scrape();

    await dropFile(processing.inbox('demo-employer'), 'listener-salary.xml', salaryAdjustment({ messageId: 'MLS-1' }, [{ pin: PERSONS.cecilia, date: '2026-12-01', salary: '561000.00' }]));
    await waitFor(async () => (await processing.deps.db.query(
      `SELECT 1 FROM messages m JOIN responses r ON r.message_id = m.id WHERE m.external_id = 'listener-salary.xml' AND m.status = 'applied' AND r.delivered_at IS NOT NULL`,
    )).rows.length === 1, 'the applied and answered document');

    const after = await scrape();
    assert.equal(valueOf(after, received), valueOf(before, received) + 1);
    assert.equal(valueOf(after, applied), valueOf(before, applied) + 1);
    assert.ok(valueOf(after, validateJobs) > valueOf(before, validateJobs), 'the validation job was timed');

    assert.equal(api.metricsHttp, undefined, 'the api process opens no second listener');
    const apiPage = await api.http!.inject({ url: '/metrics', headers: { authorization: basic('test-password') } });
    assert.equal(apiPage.statusCode, 200);
    assert.equal(valueOf(apiPage.body, received), 0, 'the api process received nothing');
    assert.match(apiPage.body, /^depot_gateway_dead_messages\{stage="apply"\} 0$/m, 'the store-wide gauges are there too');
  });
});
