/**
 * `npm run bench -- salary-file`: one company's salary file — a SalaryAdjustment
 * document with BENCH_SALARY_EMPLOYEES items (default 10,000, about 2.2 MB) — from
 * the moment it lands in the employer's inbox to the moment its per-item response
 * file is in the outbox. Target (issue: plan administration): applied in under 5 s.
 *
 * Starts a real gateway (`depot-gateway start`) on a fresh PostgreSQL database and
 * the shared Redis, seeds one agreement with that many insured employees, then drops
 * BENCH_SALARY_RUNS files (default 3) one after the other, each with new salaries.
 * Every response is checked: every item Accepted, the salary rows in PostgreSQL equal
 * the items sent. Stage times come from the gateway's own status events.
 */
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { addDays, stockholmDate } from '../src/core/calendar-date.ts';
import { dropFile } from '../test/support/harness.ts';
import {
  createDatabase, envNumber, freePort, mb, REDIS_URL, round, RssSampler, runMigrate, startGateway, withClient, writeConfig,
  runBenchmark, type BenchResources,
} from './support.ts';
import { EMPLOYER, personalIdentityNumber, seedAgreements } from './workload.ts';
import { machine } from './report.ts';

const EMPLOYEES = Math.round(envNumber('BENCH_SALARY_EMPLOYEES', 10_000));
const RUNS = Math.round(envNumber('BENCH_SALARY_RUNS', 3));
const AGREEMENT = 'BENCH-SALARY';
const log = (text: string) => process.stdout.write(`[bench salary-file] ${text}\n`);

interface RunFigures {
  readonly run: number;
  readonly bytes: number;
  readonly totalMs: number;
  readonly pickupMs: number;
  readonly intakeAndValidateMs: number;
  readonly applyMs: number;
  readonly deliverMs: number;
  readonly accepted: number;
}

function salaryFile(run: number, pins: readonly string[], today: string): { name: string; xml: string } {
  const messageId = `SALARY-FILE-${run}`;
  const effective = addDays(today, -10 * run);
  const items = pins.map((pin, index) => `  <Item>
    <ItemId>${messageId}-${index + 1}</ItemId>
    <PersonalIdentityNumber>${pin}</PersonalIdentityNumber>
    <EffectiveDate>${effective}</EffectiveDate>
    <AnnualSalary currency="SEK">${400_000 + index * 7 + run}.${String(index % 100).padStart(2, '0')}</AnnualSalary>
  </Item>
`);
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<SalaryAdjustment xmlns="urn:se:depot-gateway:v1">
  <Header>
    <MessageId>${messageId}</MessageId>
    <CreatedAt>${new Date().toISOString()}</CreatedAt>
    <AgreementNumber>${AGREEMENT}</AgreementNumber>
    <EmployerOrganisationNumber>${EMPLOYER}</EmployerOrganisationNumber>
  </Header>
${items.join('')}</SalaryAdjustment>
`;
  return { name: `salary-file-${run}.xml`, xml };
}

async function waitForResponse(outbox: string, stem: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const name = (await readdir(outbox)).find((file) => file.startsWith(`${stem}.`) && file.endsWith('Response.xml'));
    if (name) return join(outbox, name);
    if (Date.now() > deadline) throw new Error(`no response for ${stem} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function stageTimes(databaseUrl: string, externalId: string): Promise<{ received: number; validated: number; applied: number; delivered: number }> {
  return withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<{ received: string; validated: string; applied: string; delivered: string }>(
      `SELECT extract(epoch FROM m.received_at) * 1000 AS received,
              (SELECT extract(epoch FROM min(e.at)) * 1000 FROM message_events e WHERE e.message_id = m.id AND e.status = 'validated') AS validated,
              (SELECT extract(epoch FROM min(e.at)) * 1000 FROM message_events e WHERE e.message_id = m.id AND e.status = 'applied') AS applied,
              (SELECT extract(epoch FROM min(d.at)) * 1000 FROM deliveries d WHERE d.message_id = m.id AND d.outcome = 'delivered') AS delivered
         FROM messages m WHERE m.external_id = $1`,
      [externalId],
    );
    const row = rows[0];
    if (!row) throw new Error(`no message recorded for ${externalId}`);
    return { received: Number(row.received), validated: Number(row.validated), applied: Number(row.applied), delivered: Number(row.delivered) };
  });
}

async function main(resources: BenchResources): Promise<boolean> {
  const temp = (resources.temp = await mkdtemp(join(tmpdir(), 'dg-bench-salary-')));
  const database = (resources.database = await createDatabase());
  const queuePrefix = (resources.prefix = `dgbench${randomBytes(4).toString('hex')}`);
  const port = await freePort();
  const dataDir = join(temp, 'data');
  const configFile = await writeConfig(temp, {
    demo: true, port, host: '127.0.0.1', databaseUrl: database.url, redisUrl: REDIS_URL, queuePrefix, dataDir, logLevel: 'warn',
    folders: { stableMs: 50, pollIntervalMs: 20 },
    counterparties: [{ id: 'bench-employer', name: 'Bench Employer AB', organisationNumber: EMPLOYER, role: 'employer', messageTypes: ['plan-administration'] }],
  });
  runMigrate(configFile);
  const pins = Array.from({ length: EMPLOYEES }, (_, n) => personalIdentityNumber(n));
  await withClient(database.url, (client) => seedAgreements(client, [{ agreementNumber: AGREEMENT, persons: pins }]));
  log(`seeded agreement ${AGREEMENT} with ${EMPLOYEES} insured employees`);

  const gateway = (resources.gateway = await startGateway(configFile, port));
  const rss = new RssSampler(gateway.pid, 100);
  const folder = join(dataDir, 'counterparties', 'bench-employer');
  const today = stockholmDate(new Date());
  const results: RunFigures[] = [];
  let ok = true;
  for (let run = 1; run <= RUNS; run++) {
    const file = salaryFile(run, pins, today);
    const dropped = Date.now();
    await dropFile(join(folder, 'inbox'), file.name, file.xml);
    const responsePath = await waitForResponse(join(folder, 'outbox'), file.name.replace(/\.xml$/, ''), 60_000);
    const seen = Date.now();
    const response = await readFile(responsePath, 'utf8');
    const accepted = response.split('<Status>Accepted</Status>').length - 2; // minus the header's
    const stages = await stageTimes(database.url, file.name);
    const figures: RunFigures = {
      run, bytes: Buffer.byteLength(file.xml), totalMs: seen - dropped, pickupMs: round(stages.received - dropped),
      intakeAndValidateMs: round(stages.validated - stages.received), applyMs: round(stages.applied - stages.validated),
      deliverMs: round(stages.delivered - stages.applied), accepted,
    };
    results.push(figures);
    log(`run ${run}: ${figures.totalMs} ms drop → response (${JSON.stringify(figures)})`);
    if (!response.includes('<Status>Accepted</Status>\n  </Header>') || accepted !== EMPLOYEES) {
      log(`run ${run}: expected ${EMPLOYEES} accepted items and an Accepted document, got ${accepted}`);
      ok = false;
    }
  }
  const rows = await withClient(database.url, async (client) =>
    Number((await client.query<{ count: string }>(`SELECT count(*) FROM salaries WHERE message_id <> 'demo-seed' AND message_id IS NOT NULL`)).rows[0]?.count),
  );
  if (rows !== EMPLOYEES * RUNS) {
    log(`PostgreSQL holds ${rows} new salary rows, expected ${EMPLOYEES * RUNS}`);
    ok = false;
  }
  const memory = rss.finish();
  await gateway.stop();
  resources.gateway = undefined;
  const best = Math.min(...results.map((r) => r.totalMs));
  const worst = Math.max(...results.map((r) => r.totalMs));
  process.stdout.write(`
Salary file: ${EMPLOYEES} employees in one SalaryAdjustment (${mb(results[0]?.bytes ?? 0)} MB), ${RUNS} runs
machine: ${JSON.stringify(machine())}
| run | drop → response | pickup | intake + validate | apply | deliver | items accepted |
|---|---|---|---|---|---|---|
${results.map((r) => `| ${r.run} | ${r.totalMs} ms | ${r.pickupMs} ms | ${r.intakeAndValidateMs} ms | ${r.applyMs} ms | ${r.deliverMs} ms | ${r.accepted} |`).join('\n')}
gateway peak memory (VmHWM): ${mb(memory.vmHwm)} MB
target: applied with its per-item response in < 5000 ms — best ${best} ms, worst ${worst} ms: ${worst < 5000 ? 'met' : 'NOT met'}
`);
  return ok;
}

await runBenchmark('salary-file', main);
