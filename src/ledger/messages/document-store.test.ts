import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DocumentStore, READ_CHUNK_BYTES } from './document-store.ts';

test('a kept file reads back whole, in chunks small enough to decode into ordinary strings, under the sha256 it was kept with', async () => {
  const root = await mkdtemp(join(tmpdir(), 'dg-documents-'));
  try {
    const source = join(root, 'incoming.xml');
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    await writeFile(source, bytes);
    const store = new DocumentStore(join(root, 'store'));
    const kept = await store.keepFile('m-1', new Date('2026-11-19T07:00:00Z'), source);
    assert.equal(kept.sizeBytes, bytes.byteLength);
    assert.equal(kept.sha256, createHash('sha256').update(bytes).digest('hex'));
    assert.deepEqual(await readFile(join(root, 'store', kept.location)), bytes);

    const chunks: Uint8Array[] = [];
    for await (const chunk of store.read(kept.location)) chunks.push(chunk);
    assert.ok(chunks.every((chunk) => chunk.byteLength <= READ_CHUNK_BYTES), `largest chunk ${Math.max(...chunks.map((c) => c.byteLength))} bytes`);
    assert.ok(READ_CHUNK_BYTES < 1_000_000);
    assert.deepEqual(Buffer.concat(chunks), bytes);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('a location outside the store is refused', () => {
  const store = new DocumentStore(join(tmpdir(), 'dg-documents-none'));
  assert.throws(() => store.read('../../etc/passwd'), /outside the store/);
});

test("an archive file's documents read back together in one read are the documents archived; documents of two files, or of a file gone, are refused", async () => {
  const root = await mkdtemp(join(tmpdir(), 'dg-documents-'));
  try {
    const store = new DocumentStore(join(root, 'store'));
    const documents = Array.from({ length: 50 }, (_, index) => ({ messageId: `m-${index}`, bytes: randomBytes(100 + index * 97) }));
    const locations = await store.archive('2026-11-19-1', documents);
    const other = await store.archive('2026-11-19-2', documents.slice(0, 1));
    // Every other one, in reverse: the span read is cut apart by each location's own offset.
    const asked = documents.filter((_, index) => index % 2 === 1).reverse();
    const read = await store.readMembers(asked.map((document) => locations.get(document.messageId)!));
    assert.deepEqual(read, asked.map((document) => Buffer.from(document.bytes)));
    await assert.rejects(store.readMembers([locations.get('m-0')!, other.get('m-0')!]), /not all of archive\/2026-11-19-1\.gz/);
    await store.removeArchive(DocumentStore.archiveOf(locations.get('m-0')!)!);
    await assert.rejects(store.readMembers([locations.get('m-1')!]), /Could not read the archive archive\/2026-11-19-1\.gz/);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
