/**
 * What a message's history says when it is applied or rejected: how many items were
 * accepted, and for a document refused as a whole (no item weighed) its first error,
 * not "Rejected: 0 of 0 items accepted". Folder channel, queues on Redis, PostgreSQL.
 */
import { test, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { listEvents } from '../src/ledger/messages/messages.repository.ts';
import { changeFee, PERSONS } from './support/documents.ts';
import { dropFile, startTestGateway, waitFor, type TestGateway } from './support/harness.ts';

let gateway: TestGateway | undefined;
afterAll(async () => {
  await gateway?.destroy();
});

test('a document rejected as a whole gives its error as the reason; an applied one the items accepted', async () => {
  gateway = await startTestGateway();
  const db = gateway.deps.db;
  const item = { pin: PERSONS.cecilia, insurance: 'INS-100003', date: '2026-12-01', type: 'FixedCharge' as const, value: '340' };
  await dropFile(gateway.inbox('demo-employer'), 'unknown-agreement.xml', changeFee({ messageId: 'WHOLE-1', agreementNumber: 'AGR-9999' }, [item]));
  await dropFile(gateway.inbox('demo-employer'), 'applied.xml', changeFee({ messageId: 'APPLIED-1' }, [item]));
  const settled = async (externalId: string) => waitFor(async () => {
    const { rows } = await db.query<{ id: string; status: string }>('SELECT id, status FROM messages WHERE external_id = $1', [externalId]);
    return rows[0] && ['applied', 'rejected'].includes(rows[0].status) && rows[0];
  }, `${externalId} to be settled`, 60_000);

  const whole = await settled('unknown-agreement.xml');
  assert.equal(whole.status, 'rejected');
  const rejection = (await listEvents(db, whole.id)).find((event) => event.status === 'rejected');
  assert.equal(rejection?.reason, 'Rejected as a whole: AGREEMENT_UNKNOWN Agreement AGR-9999 is not known.');

  const applied = await settled('applied.xml');
  assert.equal(applied.status, 'applied');
  assert.equal((await listEvents(db, applied.id)).find((event) => event.status === 'applied')?.reason, 'Accepted: 1 of 1 items accepted');
}, 120_000);
