// Runs every *.test.ts under src/ and test/: with Node's own test runner, except the files
// jest.config.js lists, which jest runs (each file on one runner only).
// Node 20 has no glob support in `node --test`, so the files are listed here.
// Usage: npm test [-- <substring> ...]  (only files whose path contains a substring)
// First it installs and starts what the tests need (scripts/test-services.sh), so the
// one command passes on a fresh machine; DG_TEST_SERVICES=skip leaves the machine alone.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { JEST_TEST_FILES } from '../jest.config.js';

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
const services = spawnSync('bash', [join(import.meta.dirname, 'test-services.sh')], { stdio: 'inherit' });
if (services.status !== 0) process.exit(services.status ?? 2);
const onJest = new Set(JEST_TEST_FILES.map((file) => join(file)));
const nodeFiles = files.filter((file) => !onJest.has(file));
const jestFiles = files.filter((file) => onJest.has(file));
let status = 0;
if (nodeFiles.length > 0) {
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-timeout=300000', ...nodeFiles],
    { stdio: 'inherit' },
  );
  status ||= result.status ?? 1;
}
if (jestFiles.length > 0) {
  const jest = createRequire(import.meta.url).resolve('jest/bin/jest');
  const result = spawnSync(process.execPath, ['--experimental-vm-modules', jest, ...jestFiles], { stdio: 'inherit' });
  status ||= result.status ?? 1;
}
process.exit(status);
