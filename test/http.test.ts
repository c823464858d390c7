/**
 * The HTTP server on real Redis and PostgreSQL: health and readiness, staff
 * authentication in front of the queue dashboard and the message API, and a dead
 * message made alive again by replay once its cause is fixed.
 */
import { describe, test, beforeAll, afterAll, expect } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import type { InjectOptions } from 'fastify';
import { startTestGateway, waitFor, type TestGateway } from './support/harness.ts';
import { salaryAdjustment, PERSONS } from './support/documents.ts';

const staff = `Basic ${Buffer.from('staff:test-password').toString('base64')}`;
const wrong = `Basic ${Buffer.from('staff:not-the-password').toString('base64')}`;

describe('http', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      roles: ['api', 'worker'],
      settings: { workers: { attempts: 2, backoffMs: 50, reconcileEveryMs: 60_000, reconcileAfterMs: 60_000 } },
    });
  });
  afterAll(() => gateway.destroy());
  const inject = (options: InjectOptions) => gateway.http!.inject(options);

  test('health and readiness report PostgreSQL and Redis', async () => {
    assert.equal((await inject({ url: '/healthz' })).statusCode, 200);
    const ready = await inject({ url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json(), { status: 'ready', checks: { postgres: 'up', redis: 'up' } });
  });

  test('the queue dashboard and the message API need staff credentials', async () => {
    for (const url of ['/admin/queues', '/api/messages']) {
      assert.equal((await inject({ url })).statusCode, 401, `${url} without credentials`);
      const refused = await inject({ url, headers: { authorization: wrong } });
      assert.equal(refused.statusCode, 401, `${url} with a wrong password`);
      assert.match(String(refused.headers['www-authenticate']), /^Basic realm="depot-gateway staff"/, 'browsers ask for the login');
    }
    const refused = await inject({ url: '/api/messages', headers: { authorization: wrong } });
    assert.equal((refused.json() as { code: string }).code, 'STAFF_AUTHENTICATION_REQUIRED');
    const noSender = await inject({ method: 'POST', url: '/api/messages', headers: { authorization: staff, 'content-type': 'application/xml' }, payload: '<a/>' });
    assert.equal(noSender.statusCode, 400);
    assert.equal((noSender.json() as { code: string }).code, 'REQUEST_INVALID');
    const board = await inject({ url: '/admin/queues', headers: { authorization: staff } });
    assert.equal(board.statusCode, 200);
    assert.match(board.body, /<html/i);
    const queues = await inject({ url: '/admin/queues/api/queues', headers: { authorization: staff } });
    assert.deepEqual((queues.json() as { queues: { name: string }[] }).queues.map((q) => q.name).sort(), ['apply', 'calendar', 'deliver', 'validate']);
  });

  test("a person's ledger history and state as of a date", async () => {
    const url = `/api/agreements/AGR-1001/persons/${PERSONS.eva}`;
    assert.equal((await inject({ url })).statusCode, 401);
    const before = await inject({ url: `${url}?asOf=2026-06-30`, headers: { authorization: staff } });
    assert.equal(before.statusCode, 200);
    const view = before.json() as { state: { employed: boolean; insurances: { insuranceNumber: string; paidUp: boolean }[] }; history: { employment: { endDate: string } } };
    assert.equal(view.state.employed, true);
    assert.deepEqual(view.state.insurances.map((i) => [i.insuranceNumber, i.paidUp]), [['INS-100005', false]]);
    assert.equal(view.history.employment.endDate, '2026-06-30');
    const after = (await inject({ url: `${url}?asOf=2026-07-01`, headers: { authorization: staff } })).json() as typeof view;
    assert.equal(after.state.employed, false);
    assert.deepEqual(after.state.insurances.map((i) => [i.insuranceNumber, i.paidUp]), [['INS-100005', true]]);
    const unknown = await inject({ url: '/api/agreements/AGR-1001/persons/199506151233', headers: { authorization: staff } });
    assert.equal(unknown.statusCode, 404);
    assert.equal((unknown.json() as { code: string }).code, 'PERSON_NOT_FOUND');
    const badDate = await inject({ url: `${url}?asOf=yesterday`, headers: { authorization: staff } });
    assert.equal(badDate.statusCode, 400);
  });

  test('a document posted by staff is processed and its response can be read', async () => {
    const posted = await inject({
      method: 'POST', url: '/api/messages?from=demo-employer&name=api-1.xml', headers: { authorization: staff, 'content-type': 'application/xml' },
      payload: salaryAdjustment({ messageId: 'API-1' }, [{ pin: PERSONS.cecilia, date: '2026-12-01', salary: '575000.00' }]),
    });
    assert.equal(posted.statusCode, 202);
    const { messageId, status } = posted.json() as { messageId: string; status: string };
    assert.equal(status, 'received');
    const detail = await waitFor(async () => {
      const body = (await inject({ url: `/api/messages/${messageId}`, headers: { authorization: staff } })).json() as { message: { status: string }; events: { status: string }[] };
      return body.message.status === 'applied' && body;
    }, 'applied');
    assert.deepEqual(detail.events.map((event) => event.status), ['received', 'validated', 'applied']);
    assert.deepEqual((detail as unknown as { message: { metadata: unknown } }).message.metadata, { fileName: 'api-1.xml', submittedBy: 'staff' });
    const response = await inject({ url: `/api/messages/${messageId}/response`, headers: { authorization: staff } });
    assert.equal(response.headers['content-type'], 'application/xml; charset=utf-8');
    assert.match(response.body, /<SalaryAdjustmentResponse[\s\S]*<Status>Accepted<\/Status>/);
    const unknown = await inject({ method: 'POST', url: '/api/messages?from=nobody&name=x.xml', headers: { authorization: staff, 'content-type': 'application/xml' }, payload: '<a/>' });
    assert.equal(unknown.statusCode, 403);
    assert.equal((unknown.json() as { code: string }).code, 'UNKNOWN_COUNTERPARTY');
    const missing = await inject({ url: '/api/messages/01NOTAMESSAGE0000000000000', headers: { authorization: staff } });
    assert.equal(missing.statusCode, 404);
    assert.equal((missing.json() as { code: string }).code, 'MESSAGE_NOT_FOUND');
  });

  test('a response that cannot be delivered ends dead; replay after the fix delivers it', async () => {
    const outbox = gateway.outbox('demo-employer');
    const restoreOutbox = async () => {
      await rm(outbox, { recursive: true, force: true });
      await mkdir(outbox, { recursive: true });
    };
    await rm(outbox, { recursive: true });
    await writeFile(outbox, 'not a folder'); // the outbox is broken: every delivery fails
    let messageId: string;
    try {
      const posted = await inject({
        method: 'POST', url: '/api/messages?from=demo-employer&name=undeliverable.xml', headers: { authorization: staff, 'content-type': 'application/xml' },
        payload: salaryAdjustment({ messageId: 'DEAD-1' }, [{ pin: PERSONS.cecilia, date: '2026-12-02', salary: '576000.00' }]),
      });
      messageId = (posted.json() as { messageId: string }).messageId;
      const dead = await waitFor(async () => {
        const body = (await inject({ url: `/api/messages/${messageId}`, headers: { authorization: staff } })).json() as {
          message: { status: string; deadStage: string; errorCode: string; outcome: string }; deliveries: { outcome: string }[];
        };
        return body.message.status === 'dead' && body;
      }, 'dead after its delivery attempts');
      assert.equal(dead.message.deadStage, 'deliver');
      assert.equal(dead.message.errorCode, 'DELIVERY_FAILED');
      assert.equal(dead.message.outcome, 'accepted', 'the ledger change stands; only the answer is missing');
      // The first try in the job that applied it, then the deliver queue's two attempts (workers.attempts).
      assert.deepEqual(dead.deliveries.map((d) => d.outcome), ['failed', 'failed', 'failed']);
    } finally {
      await restoreOutbox();
    }

    const replayed = await inject({ method: 'POST', url: `/api/messages/${messageId}/replay`, headers: { authorization: staff } });
    assert.deepEqual(replayed.json(), { messageId, replayedFrom: 'deliver' });
    const files = await waitFor(async () => {
      const found = (await readdir(outbox)).filter((name) => name.includes(messageId) && !name.startsWith('.'));
      return found.length > 0 ? found : undefined;
    }, 'the response file after replay');
    expect(files).toEqual([`undeliverable.${messageId}.SalaryAdjustmentResponse.xml`]);
    const after = (await inject({ url: `/api/messages/${messageId}`, headers: { authorization: staff } })).json() as { message: { status: string } };
    assert.equal(after.message.status, 'applied');
    const again = await inject({ method: 'POST', url: `/api/messages/${messageId}/replay`, headers: { authorization: staff } });
    assert.equal(again.statusCode, 409, 'only dead messages can be replayed');
    assert.equal((again.json() as { code: string }).code, 'MESSAGE_NOT_REPLAYABLE');
    const salaries = await gateway.deps.db.query(`SELECT 1 FROM salaries WHERE annual_salary = 576000`);
    assert.equal(salaries.rows.length, 1, 'replaying the delivery did not apply the document again');
  });
});
