// Runs every *.test.ts under src/ and test/ with Node's own test runner.
// Node 20 has no glob support in `node --test`, so the files are listed here.
// Usage: npm test [-- <substring> ...]  (only files whose path contains a substring)
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const filters = process.argv.slice(2);
const roots = ['src', 'test'];
const files = roots
  .flatMap((root) => readdirSync(root, { recursive: true }).map((f) => join(root, String(f))))
  .filter((f) => f.endsWith('.test.ts'))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(2);
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-timeout=300000', ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
