/**
 * GET /metrics on real Redis and PostgreSQL, in a gateway with every role in one process
 * (as `start`): a document dropped into an inbox and applied moves its counters and the
 * stage histogram, a rejected one the rejected counter, a dead message shows in the
 * gauge read from the message store; the page needs staff credentials and is valid
 * Prometheus text.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dropFile, startTestGateway, waitFor, type TestGateway } from './support/harness.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';

const staff = `Basic ${Buffer.from('staff:test-password').toString('base64')}`;

/** One sample: `name{labels} value` (NaN in any case, as Prometheus reads it: prom-client writes `Nan`). */
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*\})? (-?[0-9.e+-]+|[Nn]a[Nn]|[+-]Inf)$/;

describe('metrics', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      roles: ['api', 'worker', 'watch'],
      settings: { workers: { attempts: 2, backoffMs: 50, reconcileEveryMs: 60_000, reconcileAfterMs: 60_000 } },
    });
  });
  afterAll(() => gateway.destroy());

  const scrape = async (): Promise<string> => {
    const answer = await gateway.http!.inject({ url: '/metrics', headers: { authorization: staff } });
    assert.equal(answer.statusCode, 200, answer.body);
    assert.match(String(answer.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    return answer.body;
  };
  /** The value of one sample, 0 when the series is not there yet. */
  const valueOf = (text: string, series: string): number => {
    const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
    return line ? Number(line.slice(series.length + 1)) : 0;
  };
  const responseIn = (counterpartyId: string, requestName: string) =>
    waitFor(async () => (await gateway.deps.db.query<{ status: string }>(
      `SELECT m.status FROM messages m JOIN responses r ON r.message_id = m.id WHERE m.external_id = $1 AND r.delivered_at IS NOT NULL`, [requestName],
    )).rows[0]?.status, `the answer to ${requestName} from ${counterpartyId}`);

  test('without credentials, or with a wrong password, /metrics is refused', async () => {
    for (const headers of [{}, { authorization: `Basic ${Buffer.from('staff:not-the-password').toString('base64')}` }]) {
      const answer = await gateway.http!.inject({ url: '/metrics', headers });
      assert.equal(answer.statusCode, 401);
      assert.equal(answer.json().code, 'STAFF_AUTHENTICATION_REQUIRED');
      assert.doesNotMatch(answer.body, /depot_gateway_/);
    }
  });

  test('a document dropped into an inbox and applied moves received, applied and the stage histogram; an invalid one rejected', async () => {
    const labels = 'type="SalaryAdjustment",counterparty="demo-employer"';
    const received = `depot_gateway_documents_received_total{${labels},channel="folder"}`;
    const applied = `depot_gateway_documents_finished_total{${labels},status="applied"}`;
    const rejected = `depot_gateway_documents_finished_total{${labels},status="rejected"}`;
    const validateJobs = 'depot_gateway_stage_job_duration_seconds_count{stage="validate"}';
    const before = await scrape();

    await dropFile(gateway.inbox('demo-employer'), 'metrics-salary.xml', salaryAdjustment({ messageId: 'MET-1' }, [{ pin: PERSONS.cecilia, date: '2026-12-01', salary: '561000.00' }]));
    assert.equal(await responseIn('demo-employer', 'metrics-salary.xml'), 'applied');
    const afterApplied = await scrape();
    assert.equal(valueOf(afterApplied, received), valueOf(before, received) + 1);
    assert.equal(valueOf(afterApplied, applied), valueOf(before, applied) + 1);
    assert.equal(valueOf(afterApplied, rejected), valueOf(before, rejected));
    assert.ok(valueOf(afterApplied, validateJobs) > valueOf(before, validateJobs), 'the validation job was timed');

    await dropFile(gateway.inbox('demo-employer'), 'metrics-invalid.xml', salaryAdjustment({ messageId: 'MET-2' }, [{ pin: 'not-a-pin', date: '2026-12-01', salary: '1.00' }]));
    assert.equal(await responseIn('demo-employer', 'metrics-invalid.xml'), 'rejected');
    const afterRejected = await scrape();
    assert.equal(valueOf(afterRejected, received), valueOf(before, received) + 2);
    assert.equal(valueOf(afterRejected, rejected), valueOf(before, rejected) + 1);
    assert.equal(valueOf(afterRejected, applied), valueOf(before, applied) + 1);
  });

  test('a message dead after its delivery attempts shows in the dead-messages gauge and the dead counter', async () => {
    const gauge = 'depot_gateway_dead_messages{stage="deliver"}';
    const counter = 'depot_gateway_messages_dead_total{stage="deliver"}';
    const before = await scrape();
    assert.equal(valueOf(before, gauge), 0, 'every stage is reported, 0 when nothing died there');
    const outbox = gateway.outbox('demo-employer');
    // The worker writes the month's invoice specifications into this outbox at start:
    // once they are delivered nothing else writes there while the folder is replaced.
    await waitFor(async () => {
      const { rows } = await gateway.deps.db.query<{ made: number; pending: number }>(`SELECT count(*)::int AS made, count(*) FILTER (WHERE delivered_at IS NULL)::int AS pending FROM outgoing_documents WHERE counterparty_id = 'demo-employer'`);
      return rows[0]!.made > 0 && rows[0]!.pending === 0;
    }, 'the invoice specifications delivered');
    // Every delivery fails once a file stands where the folder was. A delivery still under
    // way may make the folder again between the removal and the write: then again.
    await waitFor(async () => {
      await rm(outbox, { recursive: true, force: true });
      return writeFile(outbox, 'not a folder', { flag: 'wx' }).then(() => true, () => false);
    }, 'a file in place of the outbox');
    try {
      await dropFile(gateway.inbox('demo-employer'), 'metrics-undeliverable.xml', salaryAdjustment({ messageId: 'MET-3' }, [{ pin: PERSONS.cecilia, date: '2026-12-02', salary: '562000.00' }]));
      await waitFor(async () => (await gateway.deps.db.query(`SELECT 1 FROM messages WHERE external_id = 'metrics-undeliverable.xml' AND status = 'dead'`)).rows.length === 1, 'the dead message');
    } finally {
      await rm(outbox, { force: true });
      await mkdir(outbox, { recursive: true });
    }
    const after = await scrape();
    assert.equal(valueOf(after, gauge), 1);
    assert.equal(valueOf(after, counter), valueOf(before, counter) + 1);
  });

  test('the page is Prometheus text: every sample of a metric with HELP and TYPE, queue depths and process figures among them', async () => {
    const text = await scrape();
    const described = new Set<string>();
    const typed = new Map<string, string>();
    for (const line of text.split('\n').filter((candidate) => candidate !== '')) {
      const help = /^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) \S/.exec(line);
      const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (help) described.add(help[1]!);
      else if (type) typed.set(type[1]!, type[2]!);
      else {
        const sample = SAMPLE.exec(line);
        assert.ok(sample, `not a sample line: ${line}`);
        const family = sample[1]!.replace(/_(bucket|sum|count|total)$/, '');
        assert.ok(typed.has(sample[1]!) || typed.has(family), `${sample[1]} comes after its TYPE`);
        assert.ok(described.has(sample[1]!) || described.has(family), `${sample[1]} comes after its HELP`);
      }
    }
    assert.equal(typed.get('depot_gateway_documents_received_total'), 'counter');
    assert.equal(typed.get('depot_gateway_stage_job_duration_seconds'), 'histogram');
    assert.equal(typed.get('depot_gateway_queue_jobs'), 'gauge');
    assert.equal(typed.get('depot_gateway_connection_failures_total'), 'counter');
    assert.equal(typed.get('depot_gateway_report_deadline_misses_total'), 'counter');
    for (const state of ['waiting', 'active', 'delayed', 'failed']) assert.match(text, new RegExp(`^depot_gateway_queue_jobs\\{queue="apply",state="${state}"\\} \\d+$`, 'm'));
    assert.match(text, /^process_resident_memory_bytes \d+/m);
  });
});
