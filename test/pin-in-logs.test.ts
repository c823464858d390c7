/**
 * No personal identity number reaches the log. A gateway runs as an operator runs it
 * (`depot-gateway start`, a child process, LOG_LEVEL=debug so the most is logged, real
 * PostgreSQL and Redis) and is sent the repository's fixtures through its inbox
 * folders — valid ones, schema violations that quote element values, rule rejections
 * that name a person, numbers refused for their check digit — and a staff lookup of a
 * person by number. When every document is answered and the gateway has stopped, none
 * of the fixtures' numbers appears in its output in any form (12 or 10 digits, with or
 * without the hyphen). The answers to the senders still name them.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { Catalogue } from '../src/messages/catalogue.ts';
import { createTestDatabase, deleteQueues, dropFile, testSettings, waitFor, type TestDatabase } from './support/harness.ts';
import { freePort, runCli, writeConfigFile, type GatewayProcess } from './support/processes.ts';

const FIXTURES = join(PROJECT_ROOT, 'fixtures');
/** Documents the gateway only sends: nobody sends them in. */
const OUTGOING_TYPES: ReadonlySet<string> = new Set(['DebitAccounts', 'EngagementResponse', 'pain.001.001.03']);

/** A date of birth (or coordination day, +60) and four digits, with or without the century and hyphen. */
const TWELVE_DIGITS = /(?<!\d)((?:19|20)\d\d(?:0[1-9]|1[0-2])(?:[0-2]\d|3[01]|[6-8]\d|9[01]))-?(\d{4})(?!\d)/g;
const TEN_DIGITS = /(?<!\d)(\d\d(?:0[1-9]|1[0-2])(?:[0-2]\d|3[01]|[6-8]\d|9[01]))[-+]?(\d{4})(?!\d)/g;

interface FixtureDocument {
  readonly sender: string;
  readonly fileName: string;
  readonly bytes: Buffer;
}

describe('personal identity numbers in the log', () => {
  let database: TestDatabase;
  let folder: string;
  let queuePrefix: string;
  let port: number;
  let gateway: GatewayProcess;
  const documents = fixtureDocuments();
  const pins = personalIdentityNumbers(fixtureTexts(FIXTURES));

  beforeAll(async () => {
    database = await createTestDatabase();
    folder = await mkdtemp(join(tmpdir(), 'dg-pin-logs-'));
    port = await freePort();
    // The fixtures are dropped whole: one whose root element never closes is malformed, not being written, and is taken at once.
    const settings = testSettings(join(folder, 'data'), { databaseUrl: database.url, port, logLevel: 'debug', folders: { stableMs: 100, pollIntervalMs: 25, incompleteGraceMs: 300 } });
    queuePrefix = settings.queuePrefix as string;
    const config = await writeConfigFile(folder, settings);
    gateway = runCli(['start', '--config', config], { LOG_LEVEL: 'debug', LOG_FORMAT: 'json' });
    await waitFor(() => gateway.output().includes('"msg":"where to look"'), 'the gateway to start', 60_000);
  });
  afterAll(async () => {
    if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
    await database.drop();
    await deleteQueues(queuePrefix);
    await rm(folder, { recursive: true, force: true });
  });

  test('the fixtures carry numbers in both forms, and numbers refused for their check digit', () => {
    assert.ok(documents.length >= 150, `${documents.length} fixture documents`);
    assert.ok(pins.size >= 10, `${pins.size} numbers found`);
    assert.ok(pins.has('7001011233'), 'the 10-digit form is collected');
    assert.ok(documents.some((document) => document.fileName.includes('PERSONAL_IDENTITY_NUMBER_INVALID')), 'numbers failing their check digit are sent');
  });

  test('every fixture answered, a person looked up by number; no number in any form in the log', async () => {
    for (const document of documents) await dropFile(join(folder, 'data', 'counterparties', document.sender, 'inbox'), document.fileName, document.bytes);
    const lookup = await fetch(`http://127.0.0.1:${port}/api/agreements/AGR-1001/persons/197001011233`, {
      headers: { authorization: `Basic ${Buffer.from('staff:test-password').toString('base64')}` },
    });
    assert.ok([200, 404].includes(lookup.status), `the staff lookup answered ${lookup.status}`);
    await waitFor(() => allDelivered(database.url, documents.length), `answers to all ${documents.length} documents`, 50_000);

    // The senders are still told which number is wrong.
    const answers = await readAnswers(join(folder, 'data', 'counterparties', 'demo-employer', 'outbox'));
    assert.match(answers, /<Code>PERSONAL_IDENTITY_NUMBER_INVALID<\/Code>/);
    assert.ok(personalIdentityNumbers([answers]).size > 0, 'the responses name the persons they are about');

    gateway.child.kill('SIGTERM');
    assert.equal(await gateway.exited, 0, gateway.output().slice(-2000));
    const output = gateway.output();
    assert.ok(output.split('\n').length > documents.length, `a debug log was written (${output.split('\n').length} lines)`);
    assert.deepEqual(leaks(output, pins), [], 'no personal identity number in the log');
  });
});

/** Every request fixture, as its sender sends it, under a file name of its own. */
function fixtureDocuments(): FixtureDocument[] {
  const catalogue = new Catalogue();
  const documents: FixtureDocument[] = [];
  for (const type of readdirSync(FIXTURES).sort()) {
    if (OUTGOING_TYPES.has(type)) continue;
    const sender = catalogue.get(type)?.family === 'custodian-reporting' ? 'demo-custodian' : 'demo-employer';
    for (const kind of ['valid', 'invalid']) {
      const kindFolder = join(FIXTURES, type, kind);
      if (!existsSync(kindFolder)) continue;
      for (const name of readdirSync(kindFolder).sort()) {
        if (!name.endsWith('.xml') || name.endsWith('.response.xml')) continue;
        documents.push({ sender, fileName: `${type}-${kind}-${name}`, bytes: readFileSync(join(kindFolder, name)) });
      }
    }
  }
  return documents;
}

/** Every file under fixtures/: requests, golden responses, outgoing examples. */
function fixtureTexts(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'latin1'));
}

/** Each number as its 10 digits (the 12-digit and hyphenated forms contain them). */
function personalIdentityNumbers(texts: readonly string[]): Set<string> {
  const found = new Set<string>();
  for (const text of texts) {
    for (const match of text.matchAll(TWELVE_DIGITS)) found.add(`${match[1]!.slice(2)}${match[2]}`);
    for (const match of text.matchAll(TEN_DIGITS)) found.add(`${match[1]}${match[2]}`);
  }
  return found;
}

/** Log lines that contain a number: 7001011233, 700101-1233, 700101+1233 (and so every longer form). */
function leaks(output: string, pins: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const line of output.split('\n')) {
    const hit = [...pins].find((pin) => [pin, `${pin.slice(0, 6)}-${pin.slice(6)}`, `${pin.slice(0, 6)}+${pin.slice(6)}`].some((form) => line.includes(form)));
    if (hit) found.push(`${hit}: ${line.slice(0, 400)}`);
  }
  return found;
}

async function allDelivered(url: string, expected: number): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ messages: string; delivered: string }>(
      `SELECT count(*) AS messages, count(r.delivered_at) AS delivered FROM messages m LEFT JOIN responses r ON r.message_id = m.id`,
    );
    return Number(rows[0]?.messages) >= expected && rows[0]?.delivered === rows[0]?.messages;
  } finally {
    await client.end();
  }
}

async function readAnswers(outbox: string): Promise<string> {
  const names = (await readdir(outbox)).filter((name) => name.endsWith('.xml'));
  return (await Promise.all(names.map((name) => readFile(join(outbox, name), 'utf8')))).join('\n');
}
