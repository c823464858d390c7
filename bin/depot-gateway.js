#!/usr/bin/env node
// Entry point of the depot-gateway command.
//
// It runs the compiled JavaScript in dist/ (`npm run build`, which `npm install` runs)
// when that build is at least as new as every source file; otherwise it runs the
// TypeScript sources through tsx, so an edited checkout works without a rebuild
// (DEPOT_GATEWAY_SOURCES=1 always runs the sources). The
// compiled build starts faster and uses far less memory (no compiler thread): about
// 150 MB for an idle gateway instead of about 220 MB.
//
// File work (reading inbox files, writing and fsyncing responses, renames) runs on
// libuv's thread pool, 4 threads by default; a busy gateway needs more. It must be
// set before the pool's first use, so here, before anything else is loaded.
process.env.UV_THREADPOOL_SIZE ??= '16';

import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));

/** True when dist/ was built after the last change to any source file. */
function buildIsCurrent() {
  let built;
  try {
    built = statSync(join(root, 'dist', '.built')).mtimeMs;
  } catch {
    return false;
  }
  const newest = (folder) =>
    readdirSync(folder, { withFileTypes: true }).reduce((latest, entry) => {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) return Math.max(latest, newest(path));
      return entry.name.endsWith('.test.ts') ? latest : Math.max(latest, statSync(path).mtimeMs);
    }, 0);
  // An installation of the compiled build alone (the container image) has no sources.
  return !existsSync(join(root, 'src')) || newest(join(root, 'src')) <= built;
}

if (process.env.DEPOT_GATEWAY_SOURCES !== '1' && buildIsCurrent()) {
  process.env.DEPOT_GATEWAY_CODE = 'compiled';
  await import('../dist/cli.js');
} else {
  process.env.DEPOT_GATEWAY_CODE = 'sources';
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
