/**
 * Walks fixtures/: every valid document is accepted (fully or partly), every invalid
 * one is rejected with the code its file name starts with. Each response must match
 * its golden file beside the fixture (<name>.response.xml) and be valid against its
 * own schema; each valid document's ledger effect must match <name>.ledger.json.
 * Every fixture runs on a fresh copy of the demo ledger in the real PostgreSQL; a
 * fixture that needs more than the demo (an insurance that has ended) has its SQL in
 * <name>.before.sql beside it, run on its copy before the document is sent.
 *
 * UPDATE_GOLDEN=1 npm test -- fixtures   rewrites the golden files (review the diff).
 * FIXTURE_TYPES=ChangeFee,Transfer npm test -- fixtures   walks only those types' folders.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, basename } from 'node:path';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { SchemaRegistry } from '../src/messages/schema-registry.ts';
import { PaymentOrderSchema } from '../src/messages/payment-order.schema.ts';
import { Catalogue } from '../src/messages/catalogue.ts';
import type { Sql } from '../src/ledger/database.ts';
import { adminQuery, createDemoLedgerTemplate, createTestDatabase, normaliseResponse, startTestGateway, type TestDatabase } from './support/harness.ts';

const FIXTURES = join(PROJECT_ROOT, 'fixtures');
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const ONLY_TYPES = process.env.FIXTURE_TYPES ? new Set(process.env.FIXTURE_TYPES.split(',')) : undefined;
const schemas = SchemaRegistry.load(join(PROJECT_ROOT, 'schemas'));
const catalogue = new Catalogue();
const paymentOrders = PaymentOrderSchema.load(PaymentOrderSchema.fileIn(join(PROJECT_ROOT, 'schemas')));
/**
 * Documents the gateway only sends (no handler, no response), and DirectQuery, a question
 * over SSEK answered at once and never a message: their fixtures are checked against the
 * schema alone — DebitAccounts, EngagementResponse (a direct query's XML answer) and
 * DirectQuery against the catalogue's, the insurer's payment orders (ISO 20022
 * pain.001.001.03, a namespace of its own) against theirs.
 */
const OUTGOING_TYPES: ReadonlyMap<string, (text: string) => unknown[]> = new Map([
  ['DebitAccounts', (text: string) => schemas.validate(text, 'DebitAccounts')],
  ['EngagementResponse', (text: string) => schemas.validate(text, 'EngagementResponse')],
  ['DirectQuery', (text: string) => schemas.validate(text, 'DirectQuery')],
  ['CustodianSwitchOrder', (text: string) => schemas.validate(text, 'CustodianSwitchOrder')],
  ['CommissionStatement', (text: string) => schemas.validate(text, 'CommissionStatement')],
  ['InvoiceSpecification', (text: string) => schemas.validate(text, 'InvoiceSpecification')],
  ['pain.001.001.03', (text: string) => paymentOrders.validate(text)],
]);

interface Fixture {
  readonly type: string;
  readonly kind: 'valid' | 'invalid';
  readonly path: string;
  readonly name: string;
  readonly expectedCode: string | undefined;
}

function listFixtures(): Fixture[] {
  const fixtures: Fixture[] = [];
  for (const type of readdirSync(FIXTURES).sort()) {
    if (ONLY_TYPES && !ONLY_TYPES.has(type)) continue;
    if (OUTGOING_TYPES.has(type)) continue;
    for (const kind of ['valid', 'invalid'] as const) {
      const folder = join(FIXTURES, type, kind);
      if (!existsSync(folder)) continue;
      for (const name of readdirSync(folder).sort()) {
        if (!name.endsWith('.xml') || name.endsWith('.response.xml')) continue;
        const expectedCode = kind === 'invalid' ? /^([A-Z][A-Z0-9_]+)-/.exec(name)?.[1] : undefined;
        fixtures.push({ type, kind, path: join(folder, name), name, expectedCode });
      }
    }
  }
  return fixtures;
}

/**
 * Every ledger row a message wrote, table by table, without generated ids and
 * timestamps: any row of a ledger table whose message column (`message_id`, or
 * `*_by_message` for a row a message ended or created) names the message. New
 * history tables are covered without touching this test.
 */
async function ledgerEffect(sql: Sql, messageId: string): Promise<Record<string, Record<string, string | null>[]>> {
  const { rows: columns } = await sql.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = current_schema()
        AND table_name IN (SELECT table_name FROM information_schema.columns
                            WHERE table_schema = current_schema() AND (column_name = 'message_id' OR column_name LIKE '%\\_by\\_message'))
        AND table_name NOT IN ('messages', 'message_events', 'responses', 'deliveries', 'document_keys')
      ORDER BY table_name, ordinal_position`,
  );
  const byTable = new Map<string, string[]>();
  for (const { table_name, column_name } of columns) byTable.set(table_name, [...(byTable.get(table_name) ?? []), column_name]);
  const isMessageColumn = (column: string) => column === 'message_id' || column.endsWith('_by_message');
  const effect: Record<string, Record<string, string | null>[]> = {};
  for (const [table, tableColumns] of byTable) {
    const shown = tableColumns.filter((column) => !isMessageColumn(column) && !['id', 'recorded_at', 'created_at', 'received_at', 'arrived_at', 'updated_at'].includes(column));
    const where = tableColumns.filter(isMessageColumn).map((column) => `${column} = $1`).join(' OR ');
    const order = tableColumns.includes('id') ? 'id' : shown.join(', ');
    const { rows } = await sql.query<Record<string, string | null>>(
      `SELECT ${shown.map((column) => `${column}::text AS ${column}`).join(', ')} FROM ${table} WHERE ${where} ORDER BY ${order}`,
      [messageId],
    );
    if (rows.length > 0) effect[table] = rows;
  }
  return effect;
}

async function matchGolden(path: string, actual: string): Promise<void> {
  if (UPDATE || !existsSync(path)) {
    assert.ok(UPDATE, `golden file ${basename(path)} is missing: run with UPDATE_GOLDEN=1 and review it`);
    await writeFile(path, actual);
    return;
  }
  assert.equal(actual, await readFile(path, 'utf8'), `differs from ${basename(path)}`);
}

let template: TestDatabase;

beforeAll(async () => {
  template = await createDemoLedgerTemplate();
});
afterAll(() => template?.drop());

describe('fixtures', () => {
  const fixtures = listFixtures();

  test('every request type has valid and invalid fixtures', () => {
    for (const type of catalogue.names.filter((name) => !ONLY_TYPES || ONLY_TYPES.has(name))) {
      assert.ok(fixtures.some((f) => f.type === type && f.kind === 'valid'), `${type} has no valid fixture`);
      assert.ok(fixtures.some((f) => f.type === type && f.kind === 'invalid'), `${type} has no invalid fixture`);
    }
  });

  for (const [type, validate] of [...OUTGOING_TYPES].filter(([name]) => !ONLY_TYPES || ONLY_TYPES.has(name))) {
    test(`${type} (outgoing): every valid example is valid against its schema`, async () => {
      const folder = join(FIXTURES, type, 'valid');
      const names = readdirSync(folder).filter((name) => name.endsWith('.xml'));
      assert.ok(names.length > 0, `${type} has no valid fixture`);
      for (const name of names) assert.deepEqual(validate(await readFile(join(folder, name), 'utf8')), [], name);
    });
    test(`${type} (outgoing): every invalid example breaks its schema`, async () => {
      const folder = join(FIXTURES, type, 'invalid');
      const names = readdirSync(folder).filter((name) => name.endsWith('.xml'));
      assert.ok(names.length > 0, `${type} has no invalid fixture`);
      for (const name of names) assert.notDeepEqual(validate(await readFile(join(folder, name), 'utf8')), [], name);
    });
  }

  // Each fixture has its own database and gateway, so they run side by side (jest's
  // maxConcurrency, 5): most of a fixture's time is PostgreSQL copying and dropping its
  // database, which overlaps well (241 fixtures: 273 s one by one, 55 s five at a time).
  for (const fixture of fixtures) {
    test.concurrent(`${fixture.type}/${fixture.kind}/${fixture.name}`, async () => {
      if (fixture.kind === 'invalid') assert.ok(fixture.expectedCode, 'an invalid fixture is named <ERROR_CODE>-<what>.xml');
      const database = await createTestDatabase(template.name);
      const gateway = await startTestGateway({ roles: [], inline: true, database });
      try {
        const before = fixture.path.replace(/\.xml$/, '.before.sql');
        if (existsSync(before)) await gateway.deps.db.exec(await readFile(before, 'utf8'));
        const receipt = await gateway.intake.receive({
          channel: 'cli', counterpartyId: senderOf(fixture.type), externalId: fixture.name, receivedAt: new Date(),
          content: { bytes: await readFile(fixture.path) }, metadata: { fileName: fixture.name },
        });
        const { rows } = await gateway.deps.db.query<{ status: string; outcome: string; document_type: string; body: string }>(
          `SELECT m.status, m.outcome, r.document_type, r.body FROM messages m JOIN responses r ON r.message_id = m.id WHERE m.id = $1`,
          [receipt.messageId],
        );
        const result = rows[0];
        assert.ok(result, 'the message has a response');
        assert.deepEqual(schemas.validate(result.body, result.document_type), [], 'the response is valid against its schema');
        const effect = await ledgerEffect(gateway.deps.db, receipt.messageId);

        if (fixture.kind === 'valid') {
          assert.ok(['accepted', 'partially_accepted'].includes(result.outcome), `outcome ${result.outcome}`);
          assert.equal(result.document_type, catalogue.get(fixture.type)?.responseName);
          assert.ok(Object.values(effect).some((list) => list.length > 0), 'a valid document changes the ledger');
          await matchGolden(fixture.path.replace(/\.xml$/, '.ledger.json'), `${JSON.stringify(effect, null, 2)}\n`);
        } else {
          assert.equal(result.outcome, 'rejected');
          assert.match(result.body, /<Status>Rejected<\/Status>\n {2}<\/Header>/);
          assert.match(result.body, new RegExp(`<Code>${fixture.expectedCode}</Code>`), `rejected with ${fixture.expectedCode}`);
          assert.deepEqual(Object.values(effect).flat(), [], 'a rejected document leaves the ledger untouched');
          if (fixture.type !== '_untyped') assert.equal(result.document_type, catalogue.get(fixture.type)?.responseName);
        }
        await matchGolden(fixture.path.replace(/\.xml$/, '.response.xml'), normaliseResponse(result.body));
      } finally {
        await gateway.destroy();
        await adminQuery(`DROP DATABASE IF EXISTS ${database.name} WITH (FORCE)`);
      }
    });
  }
});

/** Custodian reports come from the demo custodian, commission files from the demo advisor firm, transfer leaflets from the demo insurer, plan administration from the demo employer. */
function senderOf(type: string): string {
  const family = new Catalogue().get(type)?.family;
  if (family === 'advisor-reporting') return 'demo-advisor-firm';
  if (family === 'insurer-transfer') return 'demo-insurer';
  return family === 'custodian-reporting' ? 'demo-custodian' : 'demo-employer';
}
