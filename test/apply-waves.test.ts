/**
 * Apply runs a batch of documents of several agreements in waves (one document of each
 * agreement side by side) and sends their handlers' common statements to PostgreSQL as
 * one. These tests record documents for five agreements without any worker, validate
 * them, and apply them with one call, as a batch job does: the ledger must read as if
 * the documents had been applied one by one in arrival order, with far fewer statements;
 * and a statement that fails for one document must not cost the others.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import type { Database, Sql } from '../src/ledger/database.ts';
import { applyMessages } from '../src/pipeline/apply.stage.ts';
import { validateMessages } from '../src/pipeline/validate.stage.ts';
import type { PipelineDeps } from '../src/pipeline/pipeline-deps.ts';
import { startTestGateway, type TestGateway } from './support/harness.ts';
import { changeFee, employmentEnded, PERSONS, salaryAdjustment } from './support/documents.ts';

const AGREEMENTS = ['AGR-3001', 'AGR-3002', 'AGR-3003', 'AGR-3004', 'AGR-3005'];
const insuranceOf = (agreement: string) => `INS-${agreement.slice(4)}1`;

/** Each agreement's documents, in the order they arrive: the salary after the end is refused. */
function documentsOf(agreement: string): { name: string; xml: string }[] {
  const fields = (messageId: string) => ({ messageId: `${agreement}-${messageId}`, agreementNumber: agreement });
  return [
    { name: `${agreement}-salary`, xml: salaryAdjustment(fields('S1'), [{ pin: PERSONS.anna, date: '2026-11-01', salary: `${agreement.slice(4)}000.00` }]) },
    { name: `${agreement}-fee`, xml: changeFee(fields('F1'), [{ pin: PERSONS.anna, insurance: insuranceOf(agreement), date: '2026-11-01', type: 'FixedCharge', value: '300' }]) },
    { name: `${agreement}-ended`, xml: employmentEnded(fields('E1'), [{ pin: PERSONS.bertil, endDate: '2026-10-31' }]) },
    { name: `${agreement}-late-salary`, xml: salaryAdjustment(fields('S2'), [{ pin: PERSONS.bertil, date: '2026-11-01', salary: '500000.00' }]) },
  ];
}

/** The documents of all agreements interleaved, as several employers' files arrive. */
const ARRIVALS = [0, 1, 2, 3].flatMap((index) => AGREEMENTS.map((agreement) => documentsOf(agreement)[index] as { name: string; xml: string }));

/** deps whose database counts the statements run inside transactions. */
function counting(deps: PipelineDeps): { deps: PipelineDeps; statements: () => number } {
  let statements = 0;
  const db: Database = Object.create(deps.db) as Database;
  db.transaction = (work) =>
    deps.db.transaction((tx) => {
      const counted: Sql = {
        query: (text, params) => ((statements += 1), tx.query(text, params)),
        exec: (text) => ((statements += 1), tx.exec(text)),
        copyFrom: (statement, chunks) => ((statements += 1), tx.copyFrom(statement, chunks)),
      };
      return work(counted);
    });
  return { deps: { ...deps, db }, statements: () => statements };
}

describe('apply in waves', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ roles: [] });
    // Five more agreements of the demo employer, each employing Anna and Bertil, Anna insured.
    await gateway.deps.db.query(
      `INSERT INTO agreements (agreement_number, name, employer_organisation_number) SELECT a, 'Plan ' || a, '5561234567' FROM unnest($1::text[]) AS a`,
      [AGREEMENTS],
    );
    await gateway.deps.db.query(
      `INSERT INTO employments (agreement_number, personal_identity_number, start_date)
       SELECT a, p, DATE '2020-01-01' FROM unnest($1::text[]) AS a CROSS JOIN unnest($2::text[]) AS p`,
      [AGREEMENTS, [PERSONS.anna, PERSONS.bertil]],
    );
    await gateway.deps.db.query(
      `INSERT INTO insurances (insurance_number, agreement_number, insured_pin, product_code, start_date, policyholder)
       SELECT n, a, $3, 'TJP-DEPA', DATE '2020-01-01', '5561234567' FROM unnest($1::text[], $2::text[]) AS t(a, n)`,
      [AGREEMENTS, AGREEMENTS.map(insuranceOf), PERSONS.anna],
    );
  });
  afterAll(() => gateway.destroy());

  async function receiveAll(documents: readonly { name: string; xml: string }[]): Promise<string[]> {
    const ids: string[] = [];
    for (const document of documents) {
      const receipt = await gateway.intake.receive({
        channel: 'cli', counterpartyId: 'demo-employer', externalId: document.name, receivedAt: new Date(),
        content: { bytes: Buffer.from(document.xml) }, metadata: { fileName: `${document.name}.xml` },
      });
      ids.push(receipt.messageId);
    }
    assert.deepEqual(await validateMessages(gateway.deps, ids), new Map(), 'every document validates');
    return ids;
  }

  async function outcomes(ids: readonly string[]): Promise<Map<string, string>> {
    const { rows } = await gateway.deps.db.query<{ external_id: string; status: string; outcome: string | null; error_code: string | null }>(
      'SELECT external_id, status, outcome, error_code FROM messages WHERE id = ANY($1::text[])',
      [ids],
    );
    return new Map(rows.map((row) => [row.external_id, `${row.status}/${row.outcome}${row.error_code ? `/${row.error_code}` : ''}`]));
  }

  test('documents of five agreements are applied in one transaction as if one by one, with a handful of statements per wave', async () => {
    const ids = await receiveAll(ARRIVALS);
    const { deps, statements } = counting(gateway.deps);
    assert.deepEqual(await applyMessages(deps, ids), new Map(), 'nothing left over');

    const expected = new Map<string, string>();
    for (const agreement of AGREEMENTS) {
      expected.set(`${agreement}-salary`, 'applied/accepted');
      expected.set(`${agreement}-fee`, 'applied/accepted');
      expected.set(`${agreement}-ended`, 'applied/accepted');
      // Applied after its agreement's EmploymentEnded, never beside or before it.
      expected.set(`${agreement}-late-salary`, 'rejected/rejected/EMPLOYMENT_ALREADY_ENDED');
    }
    assert.deepEqual(await outcomes(ids), expected);

    // One by one, the 20 handlers would run at least 60 statements (agreement, facts, write);
    // in four waves of five they share them.
    assert.ok(statements() <= 30, `${statements()} statements in the apply transaction`);

    const { rows: salaries } = await gateway.deps.db.query<{ agreement_number: string; annual_salary: string; message_id: string }>(
      `SELECT e.agreement_number, s.annual_salary::text AS annual_salary, s.message_id
         FROM salaries s JOIN employments e ON e.id = s.employment_id
        WHERE e.agreement_number = ANY($1::text[]) ORDER BY e.agreement_number`,
      [AGREEMENTS],
    );
    assert.deepEqual(
      salaries.map((row) => [row.agreement_number, row.annual_salary, row.message_id]),
      AGREEMENTS.map((agreement) => [agreement, `${agreement.slice(4)}000.00`, ids[ARRIVALS.findIndex((d) => d.name === `${agreement}-salary`)]]),
      "each salary row belongs to its own agreement's document",
    );
    const { rows: fees } = await gateway.deps.db.query<{ insurance_number: string; message_id: string }>(
      'SELECT insurance_number, message_id FROM insurance_fees WHERE insurance_number = ANY($1::text[]) ORDER BY insurance_number',
      [AGREEMENTS.map(insuranceOf)],
    );
    assert.deepEqual(
      fees.map((row) => [row.insurance_number, row.message_id]),
      AGREEMENTS.map((agreement) => [insuranceOf(agreement), ids[ARRIVALS.findIndex((d) => d.name === `${agreement}-fee`)]]),
    );
    const { rows: ended } = await gateway.deps.db.query<{ agreement_number: string; end_date: string }>(
      `SELECT agreement_number, end_date::text AS end_date FROM employments
        WHERE agreement_number = ANY($1::text[]) AND personal_identity_number = $2 ORDER BY agreement_number`,
      [AGREEMENTS, PERSONS.bertil],
    );
    assert.deepEqual(ended.map((row) => [row.agreement_number, row.end_date]), AGREEMENTS.map((agreement) => [agreement, '2026-10-31']));
    // Anna is insured, Bertil not: ending Bertil's employment makes nothing paid-up.
    const { rows: paidUp } = await gateway.deps.db.query('SELECT 1 FROM insurance_paid_up WHERE insurance_number = ANY($1::text[])', [AGREEMENTS.map(insuranceOf)]);
    assert.equal(paidUp.length, 0);
  });

  test("a shared statement that fails for one document is run again document by document: the others are applied, the failed one's agreement waits", async () => {
    // A fault in the ledger that hits one document's salary only.
    await gateway.deps.db.exec(`
      CREATE FUNCTION refuse_salary() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.annual_salary = 777777.00 THEN RAISE EXCEPTION 'salary refused by the test'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_salary BEFORE INSERT ON salaries FOR EACH ROW EXECUTE FUNCTION refuse_salary();`);
    try {
      const documents = AGREEMENTS.flatMap((agreement, index) => [
        { name: `${agreement}-raise`, xml: salaryAdjustment({ messageId: `${agreement}-R1`, agreementNumber: agreement }, [{ pin: PERSONS.anna, date: '2026-11-15', salary: index === 2 ? '777777.00' : '650000.00' }]) },
      ]).concat([
        // Behind the failing document, in its agreement: must wait for it, not overtake it.
        { name: 'AGR-3003-after', xml: changeFee({ messageId: 'AGR-3003-F2', agreementNumber: 'AGR-3003' }, [{ pin: PERSONS.anna, insurance: insuranceOf('AGR-3003'), date: '2026-11-15', type: 'FixedCharge', value: '310' }]) },
      ]);
      const ids = await receiveAll(documents);
      const failures = await applyMessages(gateway.deps, ids);

      const failedId = ids[2] as string;
      const waitingId = ids[5] as string;
      assert.deepEqual([...failures.keys()].sort(), [failedId, waitingId].sort());
      assert.match(String((failures.get(failedId) as Error).message), /salary refused by the test/);
      assert.equal((failures.get(waitingId) as { code?: string }).code, 'WAITING_FOR_PREDECESSOR');

      const states = await outcomes(ids);
      for (const agreement of ['AGR-3001', 'AGR-3002', 'AGR-3004', 'AGR-3005']) assert.equal(states.get(`${agreement}-raise`), 'applied/accepted');
      assert.equal(states.get('AGR-3003-raise'), 'validated/null');
      assert.equal(states.get('AGR-3003-after'), 'validated/null');
      const { rows } = await gateway.deps.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM salaries WHERE annual_salary = 650000.00`);
      assert.equal(rows[0]?.n, '4');
    } finally {
      await gateway.deps.db.exec('DROP TRIGGER refuse_salary ON salaries; DROP FUNCTION refuse_salary();');
    }
  });
});
