/**
 * The rules of order with the ordering key intake reads from a document's header
 * (src/messages/ordering-key-hint.ts): a validated document waits behind an older
 * document of its sender still in validation only when that one's key, as intake read
 * it, is the same or could not be read — in the apply queue's list of what may be
 * applied and in what the apply loop reads for a round. On the embedded database and
 * on PostgreSQL, with the repositories' own statements.
 */
import { describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import type { Database } from '../src/ledger/database.ts';
import { insertReceivedMessages, listApplicableOfKeys, type NewMessage } from '../src/ledger/messages/messages.repository.ts';
import { readInMemoryApplyState } from '../src/ledger/messages/in-memory-apply.repository.ts';
import { onBothDatabases } from './support/harness.ts';


let serial = 0;
function received(orderingKey: string | null, counterpartyId = 'employer'): NewMessage {
  serial += 1;
  const raw = Buffer.from(`<document n="${serial}"/>`);
  return {
    id: `MSG-${String(serial).padStart(6, '0')}`, counterpartyId, channel: 'folder', externalId: `file-${serial}.xml`, sha256: `sha-${serial}`,
    sizeBytes: raw.byteLength, raw, rawLocation: null, status: 'received', errorCode: null, duplicateOf: null, metadata: {}, receivedAt: new Date(),
    orderingKey,
  };
}

/** Records the messages in this order (so their seq follows it); validates those given a validated key. */
async function record(db: Database, messages: readonly { message: NewMessage; validatedAs?: string }[]): Promise<void> {
  await insertReceivedMessages(db, messages.map((each) => each.message));
  for (const { message, validatedAs } of messages) {
    if (validatedAs) await db.query(`UPDATE messages SET status = 'validated', ordering_key = $2, message_type = 'SalaryAdjustment' WHERE id = $1`, [message.id, validatedAs]);
  }
}

const applicable = async (db: Database, key: string) => (await db.transaction((tx) => listApplicableOfKeys(tx, [key], 100))).map((message) => message.id);

describe('an older document in validation holds back only the documents of its key as intake read it, on both databases', () => {
  test('the apply queue: another key read goes ahead; the same key, or a key not read, holds it back', async () => {
    await onBothDatabases(async (db) => {
      const otherKey = received('agreement:A');
      const waiting = received(null);
      await record(db, [{ message: otherKey }, { message: waiting, validatedAs: 'agreement:B' }]);
      const [stored] = (await db.query<{ ordering_key: string | null }>('SELECT ordering_key FROM messages WHERE id = $1', [otherKey.id])).rows;
      assert.equal(stored!.ordering_key, 'agreement:A', 'intake records the key it read');
      assert.deepEqual(await applicable(db, 'agreement:B'), [waiting.id], 'an older document of another agreement holds nothing back');

      const sameKey = received('agreement:C');
      const behindSame = received(null);
      await record(db, [{ message: sameKey }, { message: behindSame, validatedAs: 'agreement:C' }]);
      assert.deepEqual(await applicable(db, 'agreement:C'), [], 'an older document of the same agreement holds it back');

      const notRead = received(null);
      const behindUnread = received(null);
      await record(db, [{ message: notRead }, { message: behindUnread, validatedAs: 'agreement:D' }]);
      assert.deepEqual(await applicable(db, 'agreement:D'), [], 'an older document whose key intake could not read holds it back');

      const anotherSender = received(null, 'administrator');
      const ofEmployer = received(null);
      await db.query(`UPDATE messages SET status = 'rejected' WHERE status = 'received'`);
      await record(db, [{ message: anotherSender }, { message: ofEmployer, validatedAs: 'agreement:E' }]);
      assert.deepEqual(await applicable(db, 'agreement:E'), [ofEmployer.id], 'another sender never holds it back');
    });
  });

  test('the apply loop reads, of the older documents in validation, those of the round\'s keys and those whose key was not read', async () => {
    await onBothDatabases(async (db) => {
      const ofA = received('agreement:A');
      const ofB = received('agreement:B');
      const unread = received(null);
      const ours = received('agreement:A');
      await record(db, [{ message: ofA }, { message: ofB }, { message: unread }, { message: ours }]);
      const { rows: [newest] } = await db.query<{ seq: string }>('SELECT seq FROM messages WHERE id = $1', [ours.id]);
      const state = await db.transaction((tx) => readInMemoryApplyState(tx, { ids: [ours.id], counterpartyIds: ['employer'], newestSeq: Number(newest!.seq) }, ['agreement:A']));
      assert.deepEqual(state.received.map((message) => [message.id, message.orderingKey]), [[ofA.id, 'agreement:A'], [unread.id, null]]);
      assert.ok(state.locked.has('agreement:A'));
    });
  });
});
