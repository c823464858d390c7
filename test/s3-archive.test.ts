/**
 * The message-retention archive in an S3-compatible bucket (retention.archive.s3), against
 * an S3-protocol server on loopback that checks request signatures: an archive file is
 * one object under the prefix, an ordinary gzip file of the documents; each document
 * reads back alone, byte for byte, by a ranged GET; a removed file's documents no longer
 * read, and say where they were; files archived to the data folder before the bucket
 * still read, and move into it; a store that refuses the keys fails the run with the
 * bucket and key named. Then the nightly job itself, on both databases.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { runRetention, removeReplacedArchives } from '../src/calendar/message-retention.job.ts';
import { GatewayError } from '../src/core/gateway-error.ts';
import type { Database } from '../src/ledger/database.ts';
import { DocumentStore } from '../src/ledger/messages/document-store.ts';
import { insertReceivedMessages, markDead, type NewMessage } from '../src/ledger/messages/messages.repository.ts';
import { S3ArchiveBucket, type S3ArchiveSettings } from '../src/ledger/messages/s3-archive-bucket.ts';
import { FIXED_NOW, onBothDatabases, startTestGateway } from './support/harness.ts';
import { startS3Server, type S3Server } from './support/s3-server.ts';

let server: S3Server;
let root: string;
const opened: S3ArchiveBucket[] = [];

beforeAll(async () => {
  server = await startS3Server();
  root = await mkdtemp(join(tmpdir(), 'dg-s3-archive-'));
});
afterAll(async () => {
  for (const bucket of opened) await bucket.close();
  await server?.destroy();
  if (root) await rm(root, { recursive: true, force: true });
});

function settings(overrides: Partial<S3ArchiveSettings> = {}): S3ArchiveSettings {
  const { endpoint, region, bucket, accessKeyId, secretAccessKey } = server;
  return { endpoint, region, bucket, accessKeyId, secretAccessKey, prefix: 'depot-gateway/', forcePathStyle: true, ...overrides };
}

function bucketOf(overrides: Partial<S3ArchiveSettings> = {}): S3ArchiveBucket {
  const bucket = new S3ArchiveBucket(settings(overrides));
  opened.push(bucket);
  return bucket;
}

async function bytesOf(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

/** The object as the store holds it, read with a client of its own. */
async function objectBytes(key: string): Promise<Buffer> {
  const client = new S3Client({ ...settings(), credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey } });
  try {
    const answer = await client.send(new GetObjectCommand({ Bucket: server.bucket, Key: key }));
    return Buffer.from(await answer.Body!.transformToByteArray());
  } finally {
    client.destroy();
  }
}

const documents = [
  { messageId: 'm-1', bytes: Buffer.from('<SalaryAdjustment>första</SalaryAdjustment>') },
  { messageId: 'm-2', bytes: randomBytes(200_000) },
  { messageId: 'm-3', bytes: Buffer.alloc(0) },
  { messageId: 'm-4', bytes: Buffer.from('<Holdings>'.repeat(50_000)) },
];

describe('archive files in an S3-compatible bucket', () => {
  test('an archive file is one object under the prefix; each document reads back byte for byte; removed, its documents fail naming bucket and key', async () => {
    const store = new DocumentStore(join(root, 'documents'), { archiveBucket: bucketOf() });
    const locations = await store.archive('2026-11-22-41', documents);
    assert.deepEqual([...locations.keys()], documents.map((document) => document.messageId));
    for (const location of locations.values()) assert.match(location, /^s3:archive\/2026-11-22-41\.gz@\d+\+\d+$/);
    await assert.rejects(access(join(root, 'documents', 'archive')), 'nothing is written to the data folder');

    const object = await objectBytes('depot-gateway/archive/2026-11-22-41.gz');
    assert.deepEqual(gunzipSync(object), Buffer.concat(documents.map((document) => document.bytes)), 'the object is an ordinary gzip file of the documents');
    for (const { messageId, bytes } of documents) {
      const back = await bytesOf(store.read(locations.get(messageId)!));
      assert.equal(createHash('sha256').update(back).digest('hex'), createHash('sha256').update(bytes).digest('hex'), `${messageId} reads back as archived`);
    }

    const file = DocumentStore.archiveOf(locations.get('m-2')!);
    assert.equal(file, 's3:archive/2026-11-22-41.gz');
    await store.removeArchive(file!);
    await assert.rejects(bytesOf(store.read(locations.get('m-2')!)), (error: Error) => {
      assert.ok(error instanceof GatewayError);
      assert.equal(error.code, 'INTERNAL_ERROR');
      assert.match(error.message, /Could not read the archive s3:\/\/depot-archive\/depot-gateway\/archive\/2026-11-22-41\.gz: NoSuchKey/);
      return true;
    });
    await store.removeArchive(file!);
  });

  test('documents archived to the data folder before the bucket was configured still read, and move into the bucket as the four methods are used', async () => {
    const folder = join(root, 'moving');
    const onDisk = await new DocumentStore(folder).archive('2025-01-10-7', documents.slice(0, 2));
    for (const location of onDisk.values()) assert.match(location, /^archive\/2025-01-10-7\.gz@/);

    const store = new DocumentStore(folder, { archiveBucket: bucketOf({ prefix: 'moving/' }) });
    const read = await Promise.all([...onDisk].map(async ([messageId, location]) => ({ messageId, bytes: await bytesOf(store.read(location)) })));
    assert.deepEqual(read, documents.slice(0, 2).map(({ messageId, bytes }) => ({ messageId, bytes: Buffer.from(bytes) })));

    // As a rewrite of an old archive file does it: read its documents, archive them anew, remove the old file.
    const moved = await store.archive('2025-01-10-7-rewritten', read);
    await store.removeArchive(DocumentStore.archiveOf(onDisk.get('m-1')!)!);
    await assert.rejects(access(join(folder, 'archive', '2025-01-10-7.gz')), 'the file in the data folder is gone');
    await assert.rejects(bytesOf(store.read(onDisk.get('m-1')!)), /Could not read a document of the archive archive\/2025-01-10-7\.gz: ENOENT/);
    assert.deepEqual(await bytesOf(store.read(moved.get('m-1')!)), documents[0]!.bytes);
    assert.deepEqual(await bytesOf(store.read(moved.get('m-2')!)), documents[1]!.bytes);

    // Without the setting, what is in the bucket is not guessed at.
    assert.throws(() => new DocumentStore(folder).read(moved.get('m-1')!), /s3:archive\/2025-01-10-7-rewritten\.gz is in the archive bucket, and retention\.archive\.s3 is not configured/);
  });

  test('a store that refuses the keys fails the archive naming bucket and key, and nothing is recorded as archived', async () => {
    const store = new DocumentStore(join(root, 'refused'), { archiveBucket: bucketOf({ secretAccessKey: 'not-the-secret' }) });
    await assert.rejects(store.archive('2026-11-22-99', documents.slice(0, 1)), (error: Error) => {
      assert.ok(error instanceof GatewayError);
      assert.equal(error.code, 'INTERNAL_ERROR');
      assert.match(error.message, /Could not write the archive s3:\/\/depot-archive\/depot-gateway\/archive\/2026-11-22-99\.gz: SignatureDoesNotMatch/);
      return true;
    });
    await assert.rejects(objectBytes('depot-gateway/archive/2026-11-22-99.gz'), /NoSuchKey|does not exist/);
  });
});

test('a gateway configured with retention.archive.s3 keeps its archive files in the bucket', async () => {
  const { endpoint, region, bucket, accessKeyId, secretAccessKey } = server;
  const gateway = await startTestGateway({
    embedded: true, roles: [], inline: true,
    settings: { retention: { archive: { s3: { endpoint, region, bucket, accessKeyId, secretAccessKey, prefix: 'gateway/', forcePathStyle: true } } } },
  });
  try {
    const locations = await gateway.deps.documents.archive('2026-11-22-1', documents.slice(0, 1));
    assert.match(locations.get('m-1')!, /^s3:archive\/2026-11-22-1\.gz@0\+\d+$/);
    assert.deepEqual(gunzipSync(await objectBytes('gateway/archive/2026-11-22-1.gz')), documents[0]!.bytes);
  } finally {
    await gateway.destroy();
  }
});

let serial = 0;
function receivedLongAgo(days: number, bytes: Buffer): NewMessage {
  serial += 1;
  return {
    id: `S3-${String(serial).padStart(5, '0')}`, counterpartyId: 'employer', channel: 'folder', externalId: `file-${serial}.xml`,
    sha256: createHash('sha256').update(bytes).digest('hex'), sizeBytes: bytes.byteLength, raw: bytes, rawLocation: null,
    status: 'received', errorCode: null, duplicateOf: null, metadata: {}, receivedAt: new Date(FIXED_NOW.getTime() - days * 86_400_000),
  };
}

describe('the nightly retention job with the archive in the bucket', () => {
  test('old finished messages lose their bytes to objects of the bucket and read back through the store as received, on both databases', async () => {
    let run = 0;
    await onBothDatabases(async (db: Database) => {
      run += 1;
      const store = new DocumentStore(join(root, `job-${run}`), { archiveBucket: bucketOf({ prefix: `job-${run}/` }) });
      const old = [0, 1, 2, 3].map((index) => receivedLongAgo(1000 - index, Buffer.from(`<SalaryAdjustment n="${index}"><Pin>197001011233</Pin>${'x'.repeat(index * 10_000)}</SalaryAdjustment>`)));
      const dead = receivedLongAgo(900, Buffer.from('<SalaryAdjustment n="dead"/>'));
      const recent = receivedLongAgo(10, Buffer.from('<SalaryAdjustment n="recent"/>'));
      await insertReceivedMessages(db, [...old, dead, recent]);
      await db.query(`UPDATE messages SET status = 'applied' WHERE id <> $1`, [dead.id]);
      await markDead(db, dead.id, 'deliver', 'DELIVERY_FAILED', 'the outbox could not be written');

      const deps = { store, keepBytesDays: 730, maskAfterDays: 3650, maxPerRun: 3 };
      const first = await db.transaction((tx) => runRetention(tx, deps, 'test-1', FIXED_NOW));
      const second = await db.transaction((tx) => runRetention(tx, deps, 'test-2', FIXED_NOW));
      assert.deepEqual([first.archived, second.archived, first.archiveFiles + second.archiveFiles], [3, 1, 2]);

      const { rows } = await db.query<{ id: string; raw: Uint8Array | null; raw_location: string | null; sha256: string }>(
        'SELECT id, raw, raw_location, sha256 FROM messages ORDER BY seq',
      );
      const byId = new Map(rows.map((row) => [row.id, row]));
      for (const message of old) {
        const row = byId.get(message.id)!;
        assert.equal(row.raw, null, `${message.id} has no bytes in its row`);
        assert.match(row.raw_location ?? '', /^s3:archive\/test-[12]-\d+\.gz@\d+\+\d+$/);
        const back = await bytesOf(store.read(row.raw_location!));
        assert.deepEqual(back, message.raw, `${message.id} reads back from the bucket as received`);
        assert.equal(createHash('sha256').update(back).digest('hex'), row.sha256);
      }
      assert.ok(byId.get(dead.id)!.raw !== null, 'a dead message keeps its bytes');
      assert.ok(byId.get(recent.id)!.raw !== null, 'a new message keeps its bytes');
      const files = new Set(old.map((message) => DocumentStore.archiveOf(byId.get(message.id)!.raw_location!)));
      assert.equal(files.size, 2);
      for (const file of files) assert.ok((await objectBytes(`job-${run}/${file!.slice('s3:'.length)}`)).byteLength > 0, `${file} is an object of the bucket`);
      await assert.rejects(access(join(root, `job-${run}`, 'archive')), 'nothing is written to the data folder');

      // Ten years on, the files are written again to the bucket with the numbers masked, and the unmasked objects removed.
      const masking = await db.transaction((tx) => runRetention(tx, { ...deps, maxPerRun: 100 }, 'test-3', new Date(FIXED_NOW.getTime() + 3000 * 86_400_000)));
      assert.equal(masking.masked, 4);
      await removeReplacedArchives(store, masking.replaced, pino({ level: 'silent' }));
      for (const file of files) await assert.rejects(objectBytes(`job-${run}/${file!.slice('s3:'.length)}`), `${file} is removed from the bucket`);
      const { rows: masked } = await db.query<{ id: string; raw_location: string }>('SELECT id, raw_location FROM messages WHERE id = ANY($1::text[])', [old.map((message) => message.id)]);
      for (const row of masked) {
        assert.match(row.raw_location, /^s3:archive\/test-3-masked-\d+\.gz@/);
        const back = (await bytesOf(store.read(row.raw_location))).toString('latin1');
        assert.match(back, /<Pin>19700101-\*\*\*\*<\/Pin>/, `${row.id} is masked in the bucket`);
      }
    });
    assert.equal(run, 2);
  });
});
