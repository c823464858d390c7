/**
 * `npm run bench [-- <name> ...]`: runs the named benchmarks, or all of them, each in
 * its own process so one's memory and timers do not colour another's. Each prints its
 * figures; the exit code is non-zero when any reported wrong results.
 *
 *   folder-throughput  ~2 KB documents dropped into an inbox at a rate and in a burst (issue: the spine)
 *   salary-file        one salary file of 10,000 employees, drop to per-item response (issue: plan administration)
 *   holdings-file      one custodian's Holdings of 1,000,000 positions, drop to acknowledgement (issue: custodian reporting)
 *   rest               GET /InsuranceApplication/{id} at 100 connections against a bare Fastify + pg lookup (issue: the advisor API)
 *   xml-readers        the XML gate (saxes) against fast-xml-parser doing its job, per ~2 KB document and on hostile input
 *   document-keys      what writing a plan document's search keys costs its apply transaction in PostgreSQL (issue 33)
 *   search             the staff console's search by personnummer and agreement, and its overview, on 1,000,000 messages (issue 17)
 *   ssek-signatures    an SSEK request's WS-Security check: CPU per step, and the event loop with 20 checked at once here or on its thread (issue 28)
 *   log-masking        what masking personal numbers, tokens and accounts costs a log line (issue 27)
 *   transaction-guard  a handler-shaped transaction with and without the transaction guard, on both databases (issue 27)
 *   worker-kill-recovery  how long a sender's documents wait after their worker process is killed and another started (issue 28)
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const BENCHMARKS: Record<string, string> = {
  'folder-throughput': 'folder-throughput.ts',
  'salary-file': 'salary-file.ts',
  'holdings-file': 'holdings-file.ts',
  'xml-readers': 'xml-readers.ts',
  rest: 'rest.ts',
  'document-keys': 'document-keys.ts',
  search: 'search.ts',
  'ssek-signatures': 'ssek-signatures.ts',
  'log-masking': 'log-masking.ts',
  'transaction-guard': 'transaction-guard.ts',
  'worker-kill-recovery': 'worker-kill-recovery.ts',
};

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in BENCHMARKS));
if (unknown.length > 0) {
  process.stderr.write(`unknown benchmark ${unknown.join(', ')}; choose from ${Object.keys(BENCHMARKS).join(', ')}\n`);
  process.exit(2);
}
// The gateway is measured as installed: compiled (npm install builds it). An edited
// checkout would otherwise run its sources through tsx, which costs a request path
// several times its own work (module hooks, source maps).
process.stdout.write('building the gateway (npm run build)\n');
const build = spawnSync(process.execPath, [join(HERE, '..', 'scripts', 'build.mjs')], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
let failed = 0;
for (const [name, file] of Object.entries(BENCHMARKS)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  process.stdout.write(`\n=== ${name} ===\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(HERE, file)], { stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
process.exit(failed > 0 ? 1 : 0);
