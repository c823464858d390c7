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

// What the gateway writes (documents, answers, archives, the embedded database) holds
// personal data: no one but the gateway's user and group may read it, and only the
// user may change it (files 0640, folders 0750). The group is the one the SFTP server
// serves counterparties' folders with. Set here, so every way of running — a service,
// the container image, a person at a terminal — gets it, whatever the caller's umask.
process.umask(0o027);

import { fileURLToPath } from 'node:url';
import { buildIsCurrent } from './build-state.js';

const root = fileURLToPath(new URL('..', import.meta.url));

if (process.env.DEPOT_GATEWAY_SOURCES !== '1' && buildIsCurrent(root)) {
  process.env.DEPOT_GATEWAY_CODE = 'compiled';
  await import('../dist/cli.js');
} else {
  process.env.DEPOT_GATEWAY_CODE = 'sources';
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
