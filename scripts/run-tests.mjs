// Runs every *.test.ts under src/ and test/ on jest, one file at a time (jest.config.js).
// Usage: npm test [-- <substring> ...]  (only files whose path contains a substring);
// TEST_WORKERS=<n> sets how many files run at once (jest.config.js: 2).
// `npm test` runs scripts/test-services.sh first, which installs and starts what the
// tests need, so the one command passes on a fresh machine.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const filters = process.argv.slice(2);
const files = ['src', 'test']
  .flatMap((root) => readdirSync(root, { recursive: true }).map((f) => join(root, String(f))))
  .filter((f) => f.endsWith('.test.ts'))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(2);
}
const jest = createRequire(import.meta.url).resolve('jest/bin/jest');
// Whole paths, so that a filter never matches more than the files named above.
const patterns = files.map((file) => `^${join(import.meta.dirname, '..', file).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
// ES modules in jest's vm contexts are experimental in Node 20, which says so in every worker: not a finding.
const node = ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning'];
const workers = process.env.TEST_WORKERS ? [`--maxWorkers=${process.env.TEST_WORKERS}`] : [];
const result = spawnSync(process.execPath, [...node, jest, ...workers, ...(filters.length === 0 ? [] : patterns)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
