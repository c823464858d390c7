/**
 * Keeps the error-code registry (src/core/error-codes.ts) and its documentation
 * (docs/errors.md) honest, after Fastify's test/internals/errors.test.js:
 *  - the documented table lists exactly the registered codes, in registry order,
 *    with the registry's scope, HTTP status, retryable flag and message;
 *  - every code the sources raise or write is registered;
 *  - every code a fixture's file name promises is registered.
 * Pure file reading: no database, no Redis.
 */
import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { ERROR_CODES, isErrorCode } from '../src/core/error-codes.ts';

const DOC = join(PROJECT_ROOT, 'docs', 'errors.md');
const HEADER = ['Code', 'Scope', 'HTTP', 'Retryable', 'Meaning', 'What the sender or operator does'];

interface DocumentedCode {
  readonly code: string;
  readonly scope: string;
  readonly http: string;
  readonly retryable: string;
  readonly meaning: string;
  readonly advice: string;
  readonly line: number;
}

/** Splits a markdown table row into trimmed cells; `\|` inside a cell is a literal bar. */
function cellsOf(row: string): string[] {
  const inner = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  return inner.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

/** The rows of the one table whose header is HEADER. */
function readCodeTable(): DocumentedCode[] {
  const lines = readFileSync(DOC, 'utf8').split('\n');
  const start = lines.findIndex((line) => line.trim().startsWith('|') && cellsOf(line).join('|') === HEADER.join('|'));
  assert.notEqual(start, -1, `docs/errors.md has no table with the columns | ${HEADER.join(' | ')} |`);
  assert.match(lines[start + 1] ?? '', /^\s*\|(\s*:?-+:?\s*\|)+\s*$/, 'the code table header must be followed by its separator row');
  const rows: DocumentedCode[] = [];
  for (let index = start + 2; index < lines.length && lines[index]!.trim().startsWith('|'); index++) {
    const cells = cellsOf(lines[index]!);
    assert.equal(cells.length, HEADER.length, `docs/errors.md:${index + 1} has ${cells.length} cells, expected ${HEADER.length}`);
    const [code, scope, http, retryable, meaning, advice] = cells as [string, string, string, string, string, string];
    rows.push({ code: code.replace(/^`(.*)`$/, '$1'), scope, http, retryable, meaning, advice, line: index + 1 });
  }
  return rows;
}

/** Every .ts file under src/, tests included: a test may only expect registered codes. */
function sourceFiles(): string[] {
  const root = join(PROJECT_ROOT, 'src');
  return readdirSync(root, { recursive: true })
    .map((name) => join(root, String(name)))
    .filter((path) => path.endsWith('.ts'))
    .sort();
}

/**
 * Places where a string literal is an error code: new GatewayError('X', the gate's and
 * the plan handlers' reject('X') and rejectDocument('X'), `code: 'X'` and `errorCode: 'X'`
 * in results and JSON bodies, and `.code === 'X'` comparisons.
 */
const CODE_USES: readonly { pattern: RegExp; ignore?: RegExp }[] = [
  { pattern: /new\s+GatewayError\(\s*'([^']+)'/g },
  { pattern: /\b(?:reject|rejectDocument)\(\s*'([^']+)'/g },
  { pattern: /\b(?:code|errorCode)\s*:\s*'([^']+)'/g },
  // Node's own error codes (ENOENT, ERR_…) are compared this way too; they are not ours.
  { pattern: /\.code\s*===\s*'([^']+)'/g, ignore: /^(E[A-Z0-9]+|ERR_[A-Z0-9_]+)$/ },
];

const documented = readCodeTable();
const registered = Object.keys(ERROR_CODES);

test('docs/errors.md lists exactly the registered codes, in registry order', () => {
  assert.deepEqual(documented.map((row) => row.code), registered);
});

test('each documented row carries the registry\'s scope, HTTP status, retryable flag and message', () => {
  for (const row of documented) {
    assert.ok(isErrorCode(row.code), `docs/errors.md:${row.line} documents ${row.code}, which is not registered`);
    const info = ERROR_CODES[row.code];
    const where = `docs/errors.md:${row.line} (${row.code})`;
    assert.equal(row.scope, info.scope, `${where}: Scope`);
    assert.equal(row.http, String(info.httpStatus), `${where}: HTTP`);
    assert.equal(row.retryable, info.retryable ? 'yes' : 'no', `${where}: Retryable`);
    assert.equal(row.meaning, info.message, `${where}: Meaning must be the registry's message verbatim`);
  }
});

test('every documented row says what the sender or operator does', () => {
  for (const row of documented) {
    assert.ok(row.advice.length >= 20, `docs/errors.md:${row.line} (${row.code}) needs practical advice in its last column`);
  }
});

test('every error code used in src/ is registered', () => {
  const unregistered: string[] = [];
  let uses = 0;
  for (const path of sourceFiles()) {
    const lines = readFileSync(path, 'utf8').split('\n');
    for (const [index, line] of lines.entries()) {
      for (const { pattern, ignore } of CODE_USES) {
        for (const match of line.matchAll(pattern)) {
          const code = match[1]!;
          if (!/^[A-Z][A-Z0-9_]{3,}$/.test(code) || ignore?.test(code)) continue;
          uses++;
          if (!isErrorCode(code)) unregistered.push(`${relative(PROJECT_ROOT, path)}:${index + 1} uses '${code}'`);
        }
      }
    }
  }
  assert.ok(uses > 20, `expected to find the codes raised in src/, found only ${uses}: is CODE_USES still right?`);
  assert.deepEqual(unregistered, [], `codes used in src/ but missing from ERROR_CODES (register them and document them in docs/errors.md):\n  ${unregistered.join('\n  ')}`);
});

test('every code named by an invalid fixture is registered', () => {
  const fixtures = join(PROJECT_ROOT, 'fixtures');
  const unregistered: string[] = [];
  let named = 0;
  for (const type of readdirSync(fixtures).sort()) {
    const folder = join(fixtures, type, 'invalid');
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder).sort()) {
      if (!name.endsWith('.xml')) continue;
      const code = /^([A-Z][A-Z0-9_]+)-/.exec(name)?.[1];
      named++;
      if (!code || !isErrorCode(code)) unregistered.push(`fixtures/${type}/invalid/${name}`);
    }
  }
  assert.ok(named > 0, 'no invalid fixtures found under fixtures/*/invalid/');
  assert.deepEqual(unregistered, [], `invalid fixtures whose name does not start with a registered code and "-":\n  ${unregistered.join('\n  ')}`);
});
