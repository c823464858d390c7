/**
 * The apply loop of a worker process (src/pipeline/apply-loop.ts): validation hands it
 * documents with their typed documents in memory, and it applies them from `received`
 * in one transaction. These tests run intake and validation by hand against the real
 * PostgreSQL, with a scheduler that records what would go on the queues, and check the
 * rules the loop keeps: exactly once, arrival order per agreement, and nothing lost
 * when it cannot apply a document itself.
 */
import { describe, test, beforeAll, afterAll, afterEach } from '@jest/globals';
import assert from 'node:assert/strict';
import pg from 'pg';
import type { Database } from '../src/ledger/database.ts';
import { ApplyLoop } from '../src/pipeline/apply-loop.ts';
import { createIntake } from '../src/pipeline/intake.ts';
import type { PipelineDeps, StageScheduler } from '../src/pipeline/pipeline-deps.ts';
import { validateMessages } from '../src/pipeline/validate.stage.ts';
import { startTestGateway, waitFor, type TestGateway } from './support/harness.ts';
import { PERSONS, salaryAdjustment } from './support/documents.ts';

describe('the apply loop', () => {
  let gateway: TestGateway;
  let serial = 0;
  beforeAll(async () => {
    gateway = await startTestGateway({ roles: [] });
  });
  afterAll(() => gateway.destroy());
  // Nothing runs the queues here: what a test leaves waiting would hold back the next test's documents.
  afterEach(() => gateway.deps.db.query(`UPDATE messages SET status = 'dead', dead_stage = 'apply' WHERE status IN ('received', 'validated')`));

  /**
   * deps with an apply loop, a scheduler that records, and a count of transactions;
   * `gate`, when it gives a promise, holds each transaction back until it settles.
   */
  function loopDeps(options: { maxLockWaitMs?: number } = {}, gate: () => Promise<void> | undefined = () => undefined) {
    const queued: [string, readonly string[], boolean][] = [];
    const scheduler: StageScheduler = {
      enqueue: async (stage, ids, enqueueOptions) => void (ids.length > 0 && queued.push([stage, ids, enqueueOptions?.separately ?? false])),
      requeue: async () => undefined,
    };
    let transactions = 0;
    const db: Database = Object.create(gateway.deps.db) as Database;
    db.transaction = async (work) => {
      transactions += 1;
      await gate();
      return gateway.deps.db.transaction(work);
    };
    const loop = new ApplyLoop(() => deps, { retryMs: 10, ...options });
    const deps: PipelineDeps = { ...gateway.deps, db, scheduler, applyLoop: loop };
    return { deps, loop, queued, transactions: () => transactions };
  }

  /** Records salary documents (one item each) for Anna under AGR-1001, as intake would, without validating them. */
  async function receive(deps: PipelineDeps, salaries: readonly string[]): Promise<string[]> {
    const intake = createIntake({ ...deps, applyLoop: undefined, scheduler: { enqueue: async () => undefined, requeue: async () => undefined } });
    const outcomes = await intake.receiveMany!(salaries.map((salary) => {
      serial += 1;
      const name = `loop-${serial}.xml`;
      return {
        channel: 'cli', counterpartyId: 'demo-employer', externalId: name, receivedAt: new Date(), metadata: { fileName: name },
        content: { bytes: Buffer.from(salaryAdjustment({ messageId: `LOOP-${serial}` }, [{ pin: PERSONS.anna, date: '2026-11-10', salary }])) },
      };
    }));
    return outcomes.map((outcome) => {
      assert.ok('receipt' in outcome, 'recorded');
      return outcome.receipt.messageId;
    });
  }

  const statuses = async (ids: readonly string[]) => {
    const { rows } = await gateway.deps.db.query<{ id: string; status: string }>('SELECT id, status FROM messages WHERE id = ANY($1::text[])', [ids]);
    const byId = new Map(rows.map((row) => [row.id, row.status]));
    return ids.map((id) => byId.get(id));
  };
  const salariesOf = async (ids: readonly string[]) => {
    const { rows } = await gateway.deps.db.query<{ annual_salary: string }>(
      'SELECT annual_salary::text FROM salaries WHERE message_id = ANY($1::text[]) ORDER BY id', [ids],
    );
    return rows.map((row) => row.annual_salary);
  };

  /** Runs `work` holding the advisory lock of a key in a connection of its own. */
  async function holdingKey<T>(key: string, work: () => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: gateway.config.databaseUrl });
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
      return await work();
    } finally {
      await client.query('ROLLBACK');
      await client.end();
    }
  }

  test('documents validated in memory go from received to applied in one transaction, with their whole history', async () => {
    const { deps, queued, transactions } = loopDeps();
    const ids = await receive(deps, ['701001.00', '701002.00', '701003.00']);
    const before = transactions();
    assert.deepEqual(await validateMessages(deps, ids), new Map());
    assert.equal(transactions() - before, 1, 'one transaction applied all three');
    assert.deepEqual(await statuses(ids), ['applied', 'applied', 'applied']);
    assert.deepEqual(await salariesOf(ids), ['701001.00', '701002.00', '701003.00'], 'in arrival order');
    const { rows: events } = await gateway.deps.db.query<{ message_id: string; status: string }>(
      'SELECT message_id, status FROM message_events WHERE message_id = $1 ORDER BY id', [ids[0]],
    );
    assert.deepEqual(events.map((event) => event.status), ['received', 'validated', 'applied']);
    const { rows: responses } = await gateway.deps.db.query('SELECT 1 FROM responses WHERE message_id = ANY($1::text[])', [ids]);
    assert.equal(responses.length, 3);
    assert.deepEqual(queued, [['deliver', ids, false]]);
  });

  test('a document handed over again after it was applied changes nothing', async () => {
    const { deps, loop } = loopDeps();
    const ids = await receive(deps, ['702001.00']);
    await validateMessages(deps, ids);
    const { rows } = await gateway.deps.db.query<{ seq: string }>('SELECT seq FROM messages WHERE id = $1', [ids[0]]);
    // As a validation job run twice would: the loop finds it finished and leaves it.
    await loop.submit([{
      id: ids[0]!, seq: Number(rows[0]!.seq), counterpartyId: 'demo-employer', channel: 'cli', externalId: 'again.xml', metadata: {},
      messageType: 'SalaryAdjustment', orderingKey: 'agreement:AGR-1001', document: { header: {}, items: [] },
    }]);
    assert.deepEqual(await statuses(ids), ['applied']);
    assert.deepEqual(await salariesOf(ids), ['702001.00']);
  });

  test('a document whose key another transaction holds waits for it, and goes to the apply queue when held too long', async () => {
    const waiting = loopDeps();
    const [first] = await receive(waiting.deps, ['703001.00']);
    const { validating } = await holdingKey('agreement:AGR-1001', async () => {
      const running = validateMessages(waiting.deps, [first!]);
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.deepEqual(await statuses([first!]), ['received'], 'not applied while the key is held');
      assert.equal(waiting.loop.size, 1);
      return { validating: running };
    });
    assert.deepEqual(await validating, new Map());
    assert.deepEqual(await statuses([first!]), ['applied'], 'applied once the key was free');

    const impatient = loopDeps({ maxLockWaitMs: 100 });
    const [second] = await receive(impatient.deps, ['703002.00']);
    await holdingKey('agreement:AGR-1001', async () => {
      assert.deepEqual(await validateMessages(impatient.deps, [second!]), new Map());
      assert.deepEqual(await statuses([second!]), ['validated'], 'written validated for the apply queue');
    });
    assert.deepEqual(impatient.queued, [['apply', [second], true]]);
    assert.deepEqual(await salariesOf([second!]), []);
  });

  test('behind an older document of its sender that nobody here validates, a document goes to the apply queue', async () => {
    const { deps, queued } = loopDeps();
    const [older, younger] = await receive(deps, ['704001.00', '704002.00']);
    assert.deepEqual(await validateMessages(deps, [younger!]), new Map());
    assert.deepEqual(await statuses([older!, younger!]), ['received', 'validated']);
    assert.deepEqual(queued, [['apply', [younger], true]]);
    // The older one validated later: it is applied; the younger stays for its queue job (which then applies it after the older).
    assert.deepEqual(await validateMessages(deps, [older!]), new Map());
    assert.deepEqual(await statuses([older!, younger!]), ['applied', 'applied'], 'the older one takes the validated younger one along, in order');
    assert.deepEqual(await salariesOf([older!, younger!]), ['704001.00', '704002.00']);
  });

  test('behind an older document this process is validating, a document waits for it; both are applied in order', async () => {
    const { deps, loop } = loopDeps();
    const [older, younger] = await receive(deps, ['705001.00', '705002.00']);
    loop.expect([older!]);
    const youngerDone = validateMessages(deps, [younger!]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(await statuses([older!, younger!]), ['received', 'received'], 'the younger one waits in memory');
    loop.settle([older!]);
    await Promise.all([validateMessages(deps, [older!]), youngerDone]);
    assert.deepEqual(await statuses([older!, younger!]), ['applied', 'applied']);
    assert.deepEqual(await salariesOf([older!, younger!]), ['705001.00', '705002.00'], 'in arrival order');
  });

  test('a document handed to a lane while a round of that lane is under way is not overtaken by a younger one of its key', async () => {
    let gate: Promise<void> | undefined;
    const { deps, loop } = loopDeps({}, () => gate);
    const [older, younger] = await receive(deps, ['708001.00', '708002.00']);
    loop.expect([older!]);
    const youngerDone = validateMessages(deps, [younger!]);
    await waitFor(async () => loop.size === 1, 'the younger one handed over', 5000);
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    // A round for the younger one begins and is held before its first statement ...
    loop.settle([older!]);
    const olderDone = validateMessages(deps, [older!]);
    // ... while the older one is validated and handed to the same lane.
    await waitFor(async () => loop.size === 2, 'the older one handed over', 5000);
    gate = undefined;
    open();
    await Promise.all([olderDone, youngerDone]);
    assert.deepEqual(await statuses([older!, younger!]), ['applied', 'applied']);
    assert.deepEqual(await salariesOf([older!, younger!]), ['708001.00', '708002.00'], 'in arrival order');
  });

  test('a handler that fails sends only its document and its agreement\'s later ones to the apply queue; the round\'s others are applied', async () => {
    await gateway.deps.db.query(`CREATE FUNCTION refuse_706002() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.annual_salary = 706002 THEN RAISE EXCEPTION 'salary store unavailable'; END IF; RETURN NEW; END $$`);
    await gateway.deps.db.query('CREATE TRIGGER refuse_706002 BEFORE INSERT ON salaries FOR EACH ROW EXECUTE FUNCTION refuse_706002()');
    try {
      const { deps, queued } = loopDeps();
      const ids = await receive(deps, ['706001.00', '706002.00', '706003.00']);
      assert.deepEqual(await validateMessages(deps, ids), new Map());
      assert.deepEqual(await statuses(ids), ['applied', 'validated', 'validated']);
      assert.deepEqual(queued.filter(([stage]) => stage === 'apply'), [['apply', ids.slice(1), true]]);
    } finally {
      await gateway.deps.db.query('DROP TRIGGER refuse_706002 ON salaries');
      await gateway.deps.db.query('DROP FUNCTION refuse_706002()');
    }
  });

  test('a document marked dead while its transaction runs is not applied: the transaction runs again without it', async () => {
    await gateway.deps.db.query(`CREATE FUNCTION slow_707001() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.annual_salary = 707001 THEN PERFORM pg_sleep(0.5); END IF; RETURN NEW; END $$`);
    await gateway.deps.db.query('CREATE TRIGGER slow_707001 BEFORE INSERT ON salaries FOR EACH ROW EXECUTE FUNCTION slow_707001()');
    try {
      const { deps } = loopDeps();
      const [id] = await receive(deps, ['707001.00']);
      const validating = validateMessages(deps, [id!]);
      await waitFor(async () => {
        const { rows } = await gateway.deps.db.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep'`);
        return rows.length > 0;
      }, 'the apply transaction inside the slow trigger', 5000);
      // Staff (or the validation queue after its last attempt) mark it dead meanwhile.
      await gateway.deps.db.query(`UPDATE messages SET status = 'dead', dead_stage = 'validate' WHERE id = $1`, [id]);
      assert.deepEqual(await validating, new Map());
      assert.deepEqual(await statuses([id!]), ['dead']);
      assert.deepEqual(await salariesOf([id!]), [], 'its salary was rolled back');
      const { rows } = await gateway.deps.db.query('SELECT 1 FROM responses WHERE message_id = $1', [id]);
      assert.equal(rows.length, 0);
    } finally {
      await gateway.deps.db.query('DROP TRIGGER slow_707001 ON salaries');
      await gateway.deps.db.query('DROP FUNCTION slow_707001()');
    }
  });
});
