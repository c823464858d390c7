/**
 * Walks fixtures/: every valid document is accepted (fully or partly), every invalid
 * one is rejected with the code its file name starts with. Each response must match
 * its golden file beside the fixture (<name>.response.xml) and be valid against its
 * own schema; each valid document's ledger effect must match <name>.ledger.json.
 * Every fixture runs on a fresh copy of the demo ledger in the real PostgreSQL.
 *
 * UPDATE_GOLDEN=1 npm test -- fixtures   rewrites the golden files (review the diff).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, basename } from 'node:path';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { SchemaRegistry } from '../src/messages/schema-registry.ts';
import { Catalogue } from '../src/messages/catalogue.ts';
import type { Sql } from '../src/ledger/database.ts';
import { adminQuery, createTestDatabase, normaliseResponse, startTestGateway, type TestDatabase } from './support/harness.ts';

const FIXTURES = join(PROJECT_ROOT, 'fixtures');
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const schemas = SchemaRegistry.load(join(PROJECT_ROOT, 'schemas'));

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

/** Every ledger row a message wrote, without generated ids and timestamps. */
async function ledgerEffect(sql: Sql, messageId: string) {
  const rows = async (query: string) => (await sql.query(query, [messageId])).rows;
  return {
    insurance_fees: await rows(`SELECT insurance_number, fee_type, value::text, effective_date::text FROM insurance_fees WHERE message_id = $1 ORDER BY id`),
    salaries: await rows(`SELECT e.personal_identity_number, s.effective_date::text, s.annual_salary::text, s.currency
                            FROM salaries s JOIN employments e ON e.id = s.employment_id WHERE s.message_id = $1 ORDER BY s.id`),
    employments_ended: await rows(`SELECT personal_identity_number, end_date::text, end_reason FROM employments WHERE ended_by_message = $1 ORDER BY id`),
    insurance_paid_up: await rows(`SELECT insurance_number, paid_up_from::text FROM insurance_paid_up WHERE message_id = $1 ORDER BY id`),
  };
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

before(async () => {
  template = await createTestDatabase();
  const seeded = await startTestGateway({ roles: [], inline: true, database: template });
  await seeded.destroy();
});
after(() => template?.drop());

describe('fixtures', () => {
  const fixtures = listFixtures();

  test('every request type has valid and invalid fixtures', () => {
    for (const type of new Catalogue().names) {
      assert.ok(fixtures.some((f) => f.type === type && f.kind === 'valid'), `${type} has no valid fixture`);
      assert.ok(fixtures.some((f) => f.type === type && f.kind === 'invalid'), `${type} has no invalid fixture`);
    }
  });

  for (const fixture of fixtures) {
    test(`${fixture.type}/${fixture.kind}/${fixture.name}`, async () => {
      if (fixture.kind === 'invalid') assert.ok(fixture.expectedCode, 'an invalid fixture is named <ERROR_CODE>-<what>.xml');
      const database = await createTestDatabase(template.name);
      const gateway = await startTestGateway({ roles: [], inline: true, database });
      try {
        const receipt = await gateway.intake.receive({
          channel: 'cli', counterpartyId: 'demo-employer', externalId: fixture.name, receivedAt: new Date(),
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
          assert.equal(result.document_type, `${fixture.type}Response`);
          assert.ok(Object.values(effect).some((list) => list.length > 0), 'a valid document changes the ledger');
          await matchGolden(fixture.path.replace(/\.xml$/, '.ledger.json'), `${JSON.stringify(effect, null, 2)}\n`);
        } else {
          assert.equal(result.outcome, 'rejected');
          assert.match(result.body, /<Status>Rejected<\/Status>\n {2}<\/Header>/);
          assert.match(result.body, new RegExp(`<Code>${fixture.expectedCode}</Code>`), `rejected with ${fixture.expectedCode}`);
          assert.deepEqual(Object.values(effect).flat(), [], 'a rejected document leaves the ledger untouched');
          if (fixture.type !== '_untyped') assert.equal(result.document_type, `${fixture.type}Response`);
        }
        await matchGolden(fixture.path.replace(/\.xml$/, '.response.xml'), normaliseResponse(result.body));
      } finally {
        await gateway.destroy();
        await adminQuery(`DROP DATABASE IF EXISTS ${database.name} WITH (FORCE)`);
      }
    });
  }
});
