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
