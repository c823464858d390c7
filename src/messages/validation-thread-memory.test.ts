/**
 * The memory a hostile document leaves behind: libxml2's WebAssembly memory grows with
 * the largest document it has held and never shrinks, so the validation thread is
 * replaced when a request leaves it more than `memoryGrowthMb` above its start. A set
 * of documents built to be expensive for libxml2 goes through one validation thread
 * with the default limit, each with a valid document waiting behind it; afterwards the
 * thread's memory and the process's resident memory are back near where they started,
 * and every document got the verdict a thread that was never replaced gives.
 *
 * A file of its own: jest gives it a fresh process, so the resident memory measured is
 * this test's only.
 */
import { test, expect } from '@jest/globals';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { DocumentVerdict, ReturnedMemory } from './schema-validator.ts';
import { loadWatchingLibxml2Memory } from './libxml2-memory.ts';
import { startValidationThread, VALIDATION_MEMORY_GROWTH_MB } from './validation-thread.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SCHEMAS = join(ROOT, 'schemas');
const NS = 'urn:se:depot-gateway:v1';
const MB = 1024 * 1024;
/**
 * Resident memory may differ this much from before the set (heaps settle, allocator caches;
 * 450 → 512 MB was seen under jest on a 2-core machine). The set grows libxml2's memory by
 * about 130 MB, and a thread kept would keep all of it, so this still tells the two apart.
 */
const RSS_TOLERANCE = 90 * MB;

const valid = readFileSync(join(ROOT, 'fixtures', 'SalaryAdjustment', 'valid', 'multi-item.xml'), 'utf8');
const laughs = [
  '<!ENTITY lol "lol">',
  ...Array.from({ length: 9 }, (_, level) => `<!ENTITY lol${level + 1} "${`&lol${level === 0 ? '' : level};`.repeat(10)}">`),
].join('\n');

/**
 * What the XML gate lets through to libxml2 (the DTDs it would refuse too). Alone, the
 * attributes and the million elements each grow libxml2's memory by 40–60 MB, under the
 * limit: such memory stays, up to the limit. Two million elements grow it by about
 * 140 MB, past it.
 */
const HOSTILE: Record<string, string> = {
  // 200,000 attributes, 64 to an element: under the gate's caps (per element and per document).
  'many-attributes': `<?xml version="1.0"?>\n<SalaryAdjustment xmlns="${NS}">${
    `<Item${Array.from({ length: 64 }, (_, index) => ` attribute${index}="value ${index} of an element built to be expensive"`).join('')}/>`.repeat(3_125)
  }</SalaryAdjustment>`,
  'entity-expansion': `<?xml version="1.0"?>\n<!DOCTYPE lolz [\n${laughs}\n]>\n<SalaryAdjustment xmlns="${NS}">&lol9;</SalaryAdjustment>`,
  'deep-nesting': `<?xml version="1.0"?>\n<SalaryAdjustment xmlns="${NS}">${'<Item>'.repeat(10_000)}${'</Item>'.repeat(10_000)}</SalaryAdjustment>`,
  'million-elements': `<?xml version="1.0"?>\n<SalaryAdjustment xmlns="${NS}">${'<a/>'.repeat(1_000_000)}</SalaryAdjustment>`,
  'two-million-elements': `<?xml version="1.0"?>\n<SalaryAdjustment xmlns="${NS}">${'<a/>'.repeat(2_000_000)}</SalaryAdjustment>`,
};

/** Resident memory once this thread's garbage (the documents' texts, their copies to the thread) is collected. */
const rss = () => {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().rss;
};

test('a thread whose libxml2 memory a document grew past the limit is replaced: memory comes back, verdicts are unchanged, waiting documents get theirs', async () => {
  // The verdicts of a libxml2 never replaced: on this thread, before the resident memory is measured.
  const { memoryBytes: referenceMemory, loaded: [{ SchemaRegistry }, { InlineSchemaValidator }] } = await loadWatchingLibxml2Memory(
    () => Promise.all([import('./schema-registry.ts'), import('./inline-schema-validator.ts')]),
  );
  const reference = new InlineSchemaValidator(SchemaRegistry.load(SCHEMAS));
  const referenceAtStart = referenceMemory();
  const expected: Record<string, DocumentVerdict[]> = {};
  for (const [name, text] of Object.entries(HOSTILE)) expected[name] = await reference.validateDocuments([text], 'SalaryAdjustment');
  const referenceGrowth = (referenceMemory() ?? 0) - (referenceAtStart ?? 0);
  await reference.close();
  assert.ok(referenceGrowth > VALIDATION_MEMORY_GROWTH_MB * MB, `the set grows a libxml2 never replaced past the limit (by ${Math.round(referenceGrowth / MB)} MB)`);

  // A budget far above what these take, so that a loaded machine's slowness is not taken for a stall.
  const validator = await startValidationThread(SCHEMAS, { budgetMs: 120_000 });
  const returned: ReturnedMemory[] = [];
  validator.onMemoryReturned((memory) => returned.push(memory));
  expect(await validator.validateDocuments([valid], 'SalaryAdjustment')).toStrictEqual([{ errors: [] }]);
  const atStart = validator.libxml2MemoryBytes;
  assert.ok(atStart !== undefined && atStart > 0, 'the thread reports its libxml2 memory');
  // One replacement first: the process's allocator keeps some of a thread's memory for the next; measured from there.
  await validator.validateDocuments([HOSTILE['two-million-elements']!], 'SalaryAdjustment');
  returned.length = 0;
  const rssBefore = rss();

  // All sent at once: each hostile document with a valid one waiting behind it.
  const names = Object.keys(HOSTILE);
  const answers = await Promise.all(names.flatMap((name) => [
    validator.validateDocuments([HOSTILE[name]!], 'SalaryAdjustment'),
    validator.validateDocuments([valid], 'SalaryAdjustment'),
  ]));
  names.forEach((name, index) => {
    expect({ name, verdict: answers[index * 2] }).toStrictEqual({ name, verdict: expected[name] });
    expect({ after: name, verdict: answers[index * 2 + 1] }).toStrictEqual({ after: name, verdict: [{ errors: [] }] });
  });
  for (const name of ['many-attributes', 'million-elements', 'two-million-elements']) {
    const [verdict] = expected[name] ?? [];
    assert.ok(verdict && 'errors' in verdict && verdict.errors.length > 0, `${name}: ${JSON.stringify(verdict)}`);
  }

  assert.ok(returned.length >= 1, 'the thread was replaced for its memory');
  for (const memory of returned) {
    assert.equal(memory.atStartBytes, atStart);
    assert.equal(memory.limitBytes, VALIDATION_MEMORY_GROWTH_MB * MB);
    assert.ok(memory.grownToBytes - memory.atStartBytes > memory.limitBytes, JSON.stringify(memory));
  }

  // The thread in place now: it validates, and its memory is back near its start.
  expect(await validator.validateDocuments([valid], 'SalaryAdjustment')).toStrictEqual([{ errors: [] }]);
  const now = validator.libxml2MemoryBytes;
  assert.ok(now !== undefined && now - atStart <= VALIDATION_MEMORY_GROWTH_MB * MB, `libxml2's memory: ${now} bytes, ${atStart} at start`);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const rssAfter = rss();
  const largest = Math.max(...returned.map((memory) => memory.grownToBytes));
  process.stdout.write(`# libxml2's memory: ${Math.round(atStart / MB)} MB at start, grown to ${Math.round(largest / MB)} MB, replaced ${returned.length} time(s), ${Math.round(now / MB)} MB after the set; ` +
    `resident memory ${Math.round(rssBefore / MB)} MB before the set, ${Math.round(rssAfter / MB)} MB after\n`);
  assert.ok(rssAfter - rssBefore < RSS_TOLERANCE,
    `resident memory ${Math.round(rssBefore / MB)} MB before the set, ${Math.round(rssAfter / MB)} MB after`);
});
