#!/usr/bin/env node
// Entry point of the depot-gateway command. Sources run through tsx, so there is
// no build step between a checkout and a running gateway.
// File work (reading inbox files, writing and fsyncing responses, renames) runs on
// libuv's thread pool, 4 threads by default; a busy gateway needs more. It must be
// set before the pool's first use, so here, before anything else is loaded.
process.env.UV_THREADPOOL_SIZE ??= '16';

const { register } = await import('tsx/esm/api');

register();
await import('../src/cli.ts');
