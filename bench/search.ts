/**
 * `npm run bench -- search`: the staff console's search and overview on a store of
 * BENCH_SEARCH_MESSAGES (default 1,000,000) messages, generated in PostgreSQL
 * (bench/message-store.ts: a year of 200 counterparties, their document keys).
 *
 * Starts a real gateway (`depot-gateway start`) on the generated store, signs in to the
 * console as a browser does and asks, one request at a time as a member of staff
 * would, the message browser's first page (newest first) for BENCH_SEARCHES (500)
 * different personnummer and up to as many agreements (the store has some 600), and the overview page
 * BENCH_OVERVIEWS (50) times, each kind after a warm-up of 20 requests. The keys are
 * those of randomly chosen messages, so a busy agreement is asked for as often as
 * staff would meet it. Every page is checked: as many rows as the key has messages
 * (at most a page), the newest of them first.
 *
 * Target (issue 17): search by personnummer and by agreement p95 < 100 ms; the
 * overview < 300 ms.
 *
 * Then what the store's size does to the rest (issue 30, part 3): BENCH_SEARCH_INTAKE
 * (2,000; 0 leaves it out) ~2 KB SalaryAdjustment documents dropped at once into the
 * demo employer's inbox, for 50 agreements seeded beside the store, timed to their
 * answers (intake, apply and delivery on a store this size: its unique indexes, the
 * search keys); and one night's run of the message retention (BENCH_RETENTION_MAX
 * documents, the default 200,000, of those received more than 180 days before),
 * timed in one transaction as the calendar runs it.
 */
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { buildIsCurrent } from '../bin/build-state.js';
import { runRetention } from '../src/calendar/message-retention.job.ts';
import { stockholmDate } from '../src/core/calendar-date.ts';
import { openPostgresDatabase } from '../src/ledger/postgres.database.ts';
import { DocumentStore } from '../src/ledger/messages/document-store.ts';
import { figures, runScenario } from './end-to-end.bench.ts';
import { generateMessageStore, MESSAGE_ID_OF_SEQ, storeCounterparties } from './message-store.ts';
import { benchAgreements, buildDocuments, seedAgreements } from './workload.ts';
import { calibrate, machine } from './report.ts';
import { createDatabase, envNumber, freePort, percentile, REDIS_URL, runBenchmark, runMigrate, startGateway, withClient, writeConfig } from './support.ts';

const settings = {
  messages: Math.round(envNumber('BENCH_SEARCH_MESSAGES', 1_000_000)),
  searches: Math.round(envNumber('BENCH_SEARCHES', 500)),
  overviews: Math.round(envNumber('BENCH_OVERVIEWS', 50)),
  intake: Math.round(envNumber('BENCH_SEARCH_INTAKE', 2000)),
  retentionMax: Math.round(envNumber('BENCH_RETENTION_MAX', 200_000)),
};
const WARM_UP = 20;
const PAGE_SIZE = 50;
const log = (text: string) => process.stdout.write(`[bench search] ${text}\n`);

/** A key to search for, with what the first page must show. */
interface SearchKey { value: string; messages: number; newestId: string }

/** Signs in through the sign-in form, as a browser does; gives the session's Cookie header. */
async function signIn(base: string, username: string, password: string): Promise<string> {
  const form = await fetch(`${base}/console/sign-in`);
  const formCookie = form.headers.getSetCookie().find((cookie) => cookie.startsWith('dg_sign_in_form='))?.split(';')[0];
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  if (!formCookie || !csrf) throw new Error('the sign-in form has no CSRF cookie or field');
  const answer = await fetch(`${base}/console/sign-in`, {
    method: 'POST', redirect: 'manual', headers: { cookie: formCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, next: '/console', username, password }).toString(),
  });
  const session = answer.headers.getSetCookie().find((cookie) => cookie.startsWith('dg_staff_session='))?.split(';')[0];
  if (answer.status !== 303 || !session) throw new Error(`sign-in answered ${answer.status}`);
  return session;
}

/** Distinct keys of one kind named by randomly chosen messages, with their count and newest message. */
async function pickKeys(databaseUrl: string, kind: string, wanted: number): Promise<SearchKey[]> {
  return withClient(databaseUrl, async (client) => {
    await client.query('SELECT setseed(0.29)');
    // Messages drawn at random (by sequence number; their ids follow from it), then the keys they name.
    // The newest by the key's own rows: the gateway may have applied a document of its own
    // (the demo's) since the store was generated.
    const { rows } = await client.query<{ value: string; messages: string; newest: string }>(
      `WITH chosen AS (
         SELECT k.value, min(s.n) AS drawn FROM (SELECT n, ${MESSAGE_ID_OF_SEQ('1 + floor(random() * $3::int)::bigint')} AS id FROM generate_series(1, $2::int * 4) n) s
         JOIN document_keys k ON k.message_id = s.id AND k.kind = $1 GROUP BY k.value ORDER BY drawn LIMIT $2::int)
       SELECT c.value, count(*) AS messages,
         (SELECT message_id FROM document_keys n WHERE n.kind = $1 AND n.value = c.value ORDER BY n.seq DESC LIMIT 1) AS newest
       FROM chosen c JOIN document_keys k ON k.kind = $1 AND k.value = c.value GROUP BY c.value, c.drawn ORDER BY c.drawn`,
      [kind, wanted, settings.messages],
    );
    return rows.map((row) => ({ value: row.value, messages: Number(row.messages), newestId: row.newest }));
  });
}

/** One page load, timed from the request to the last byte of the answer. */
async function timedPage(url: string, cookie: string): Promise<{ ms: number; body: string }> {
  const started = performance.now();
  const response = await fetch(url, { headers: { cookie } });
  const body = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${body.slice(0, 300)}`);
  return { ms, body };
}

/** What is wrong with a search's first page, or undefined. */
function checkPage(body: string, key: SearchKey): string | undefined {
  const ids = [...body.matchAll(/<tr data-message-id="([^"]+)"/g)].map((match) => match[1]);
  const expected = Math.min(PAGE_SIZE, key.messages);
  if (ids.length !== expected) return `${key.value}: ${ids.length} rows, not ${expected}`;
  if (ids[0] !== key.newestId) return `${key.value}: first row ${ids[0]}, not the newest ${key.newestId}`;
  return undefined;
}

const summary = (sorted: readonly number[]) =>
  `p50 ${percentile(sorted, 50).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`;

await runBenchmark('search', async (resources) => {
  const calibration = calibrate();
  const host = machine(calibration);
  log(`calibration: ${calibration} ms for a fixed piece of work; ${host.cpu}, ${host.cores} cores, ${host.os}, node ${host.node}`);
  resources.temp = await mkdtemp(join(tmpdir(), 'dg-bench-search-'));
  resources.database = await createDatabase();
  resources.prefix = `dgbenchsearch${process.pid}`;
  const port = await freePort();
  const staff = { username: 'bench-staff', password: 'bench-staff-password' };
  const config = await writeConfig(resources.temp, {
    demo: true, dataDir: join(resources.temp, 'data'), port, logLevel: 'warn', databaseUrl: resources.database.url, redisUrl: REDIS_URL, queuePrefix: resources.prefix,
    staff: { users: [{ ...staff, role: 'viewer' }] },
    // The generated year of messages is not archived by the gateway's own nightly run while it is measured.
    retention: { keepBytesDays: 3650 },
    // As folder-throughput sets them, so the intake figure compares with its burst on an empty store.
    folders: { stableMs: 50, pollIntervalMs: 20 },
    counterparties: storeCounterparties().map(({ id, name, organisationNumber, role, messageTypes }) => ({ id, name, organisationNumber, role, messageTypes })),
  });
  runMigrate(config);
  const started = performance.now();
  const databaseUrl = resources.database.url;
  await withClient(databaseUrl, (client) => generateMessageStore(client, settings.messages, new Date(), log));
  log(`store generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  resources.gateway = await startGateway(config, port);
  if (!buildIsCurrent(PROJECT_ROOT)) log('WARNING: a source changed after the build, so the gateway may run its sources through tsx: these figures are not of the compiled build');
  const base = `http://127.0.0.1:${port}`;
  const cookie = await signIn(base, staff.username, staff.password);
  const wrong: string[] = [];
  const results: Record<string, { target: number; sorted: number[] }> = {};

  for (const search of [{ name: 'personnummer', kind: 'personnummer', parameter: 'pnr' }, { name: 'agreement', kind: 'agreement', parameter: 'agreement' }]) {
    const keys = await pickKeys(databaseUrl, search.kind, settings.searches + WARM_UP);
    const times: number[] = [];
    for (const [index, key] of keys.entries()) {
      const { ms, body } = await timedPage(`${base}/console/messages?${search.parameter}=${encodeURIComponent(key.value)}`, cookie);
      const problem = checkPage(body, key);
      if (problem) wrong.push(problem);
      if (index >= WARM_UP) times.push(ms);
    }
    const sorted = times.sort((a, b) => a - b);
    const counts = keys.map((key) => key.messages).sort((a, b) => a - b);
    results[`search by ${search.name}`] = { target: 100, sorted };
    log(`search by ${search.name}: ${sorted.length} keys measured after ${Math.min(WARM_UP, keys.length)} more (all naming ${counts[0]}–${counts.at(-1)} messages, median ${percentile(counts, 50)}): ${summary(sorted)}`);
  }

  const overviewTimes: number[] = [];
  for (let index = 0; index < WARM_UP + settings.overviews; index += 1) {
    const { ms, body } = await timedPage(`${base}/console`, cookie);
    if (!body.includes('<table id="today">')) wrong.push('the overview shows no table of today\'s documents');
    if (index >= WARM_UP) overviewTimes.push(ms);
  }
  const overview = overviewTimes.sort((a, b) => a - b);
  results.overview = { target: 300, sorted: overview };
  log(`overview page: ${overview.length} loads: ${summary(overview)}`);

  if (settings.intake > 0) {
    // Agreements of its own beside the store's (BENCH-0001 …), for the demo employer, whose documents are applied.
    const agreements = benchAgreements(50);
    await withClient(databaseUrl, (client) => seedAgreements(client, agreements));
    const documents = buildDocuments({ prefix: 'scale', count: settings.intake, serialOffset: 0, agreements, itemsPerDocument: 7, now: new Date() });
    const folder = join(resources.temp, 'data', 'counterparties', 'demo-employer');
    const run = figures(await runScenario({ inbox: join(folder, 'inbox'), outbox: join(folder, 'outbox') }, documents, { kind: 'burst', batch: 50 }, 600_000));
    if (!run.complete) wrong.push(`intake: ${run.sent - run.responses} of ${run.sent} documents unanswered`);
    log(`intake on a store of ${settings.messages} messages: ${run.responses}/${run.sent} answered, ${run.documentsPerSecond} documents/s, p50 ${run.latencyMs.p50} ms, p99 ${run.latencyMs.p99} ms`);
  }
  await resources.gateway.stop();
  resources.gateway = undefined;

  if (settings.retentionMax > 0) {
    const db = openPostgresDatabase({ url: databaseUrl, max: 2 });
    try {
      const store = new DocumentStore(join(resources.temp, 'documents'));
      await mkdir(join(resources.temp, 'documents'), { recursive: true });
      const now = new Date();
      // One night archiving (nothing old enough to mask), then, ten years on, one masking what it archived (and archiving nothing more: keepBytesDays set past every message).
      let started = performance.now();
      const run = await db.transaction((tx) => runRetention(tx, { store, keepBytesDays: 180, maskAfterDays: 3650, maxPerRun: settings.retentionMax }, `bench-${stockholmDate(now)}`, now));
      let seconds = (performance.now() - started) / 1000;
      log(`message retention on a store of ${settings.messages} messages: one run moved ${run.archived} documents' bytes (${(run.bytes / 1048576).toFixed(1)} MB) and ${run.responses} responses into ${run.archiveFiles} archive files in ${seconds.toFixed(1)} s (${Math.round(run.archived / seconds)} messages/s), up to seq ${run.lastSeq}`);
      const later = new Date(now.getTime() + 3650 * 86_400_000);
      started = performance.now();
      const masking = await db.transaction((tx) => runRetention(tx, { store, keepBytesDays: 100_000, maskAfterDays: 3650, maxPerRun: settings.retentionMax }, `bench-${stockholmDate(later)}`, later));
      seconds = (performance.now() - started) / 1000;
      log(`message retention ten years on: masked the personal identity numbers of ${masking.masked} documents in ${masking.maskedFiles} archive files in ${seconds.toFixed(1)} s (${Math.round(masking.masked / seconds)} documents/s); ${masking.archived} more archived`);
    } finally {
      await db.close();
    }
  }

  for (const [name, { target, sorted }] of Object.entries(results)) {
    const measured = name === 'overview' ? sorted.at(-1)! : percentile(sorted, 95);
    log(`${name}: ${name === 'overview' ? 'slowest' : 'p95'} ${measured.toFixed(1)} ms (target < ${target} ms): ${measured < target ? 'MET' : 'NOT MET'}`);
  }
  for (const problem of wrong.slice(0, 10)) log(`wrong answer: ${problem}`);
  if (wrong.length > 0) log(`${wrong.length} wrong answers`);
  return wrong.length === 0;
});
