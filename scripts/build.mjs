// `npm run build`: compiles src/ to dist/ with tsc (tsconfig.build.json) and stamps the
// build, so bin/depot-gateway.js knows it is at least as new as every source file.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const started = new Date();
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  // An install without development dependencies (npm install --omit=dev) has no compiler:
  // it runs the sources through tsx. Only an explicit `npm run build` fails on it.
  if (process.env.npm_lifecycle_event === 'prepare') {
    console.warn('depot-gateway: TypeScript is not installed, so there is no compiled build; the sources run through tsx.');
    process.exit(0);
  }
  console.error('depot-gateway: npm run build needs the development dependencies (TypeScript): npm install');
  process.exit(1);
}
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);
mkdirSync(new URL('../dist/', import.meta.url), { recursive: true });
// Stamped with the start time: a source saved while tsc ran counts as newer than the build.
writeFileSync(new URL('../dist/.built', import.meta.url), `${started.toISOString()}\n`);
utimesSync(new URL('../dist/.built', import.meta.url), started, started);
