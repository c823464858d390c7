/**
 * Stages running in one process hand their results to the next (src/pipeline/hand-off.ts)
 * instead of reading them back from the message store. These tests run intake, validate,
 * apply and deliver by hand, once with a hand-off and once with one too small to hold
 * anything (as when another process took the job, or after a restart): the ledger, the
 * stored responses and the delivered files must be the same, and the hand-off must be
 * empty once every document is delivered.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { applyMessages } from '../src/pipeline/apply.stage.ts';
import { deliverResponses } from '../src/pipeline/deliver.stage.ts';
import { HandOff } from '../src/pipeline/hand-off.ts';
import { createIntake } from '../src/pipeline/intake.ts';
import type { PipelineDeps } from '../src/pipeline/pipeline-deps.ts';
import { validateMessages } from '../src/pipeline/validate.stage.ts';
import { startTestGateway, type TestGateway } from './support/harness.ts';
import { PERSONS, salaryAdjustment } from './support/documents.ts';

describe('the hand-off between stages', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    // No roles: nothing runs the stages but the test.
    gateway = await startTestGateway({ roles: [] });
  });
  afterAll(() => gateway.destroy());

  /** Runs three documents through every stage with `handOff`; gives each one's response file, status and stored response. */
  async function runThrough(label: string, handOff: HandOff) {
    const deps: PipelineDeps = { ...gateway.deps, handOff, scheduler: { enqueue: async () => undefined, requeue: async () => undefined } };
    const intake = createIntake(deps);
    const documents = [
      salaryAdjustment({ messageId: `${label}-1`, agreementNumber: 'AGR-1001' }, [{ pin: PERSONS.anna, date: '2026-11-01', salary: '510000.00' }]),
      // Bertil, then a person the agreement does not employ: partly accepted.
      salaryAdjustment({ messageId: `${label}-2`, agreementNumber: 'AGR-1001' }, [
        { pin: PERSONS.bertil, date: '2026-11-01', salary: '420000.00' },
        { pin: '194107086995', date: '2026-11-01', salary: '1.00' },
      ]),
      `<not-xml ${label}`,
    ];
    const outcomes = await intake.receiveMany!(documents.map((xml, index) => ({
      channel: 'folder', counterpartyId: 'demo-employer', externalId: `${label}-${index}.xml`, receivedAt: new Date(),
      content: { bytes: Buffer.from(xml) }, metadata: { fileName: `${label}-${index}.xml` },
    })));
    const ids = outcomes.map((outcome) => {
      assert.ok('receipt' in outcome, 'recorded');
      return outcome.receipt.messageId;
    });
    assert.deepEqual(await validateMessages(deps, ids), new Map());
    assert.deepEqual(await applyMessages(deps, ids.slice(0, 2)), new Map());
    assert.deepEqual(await deliverResponses(deps, ids), new Map());
    const { rows } = await gateway.deps.db.query<{ id: string; status: string; outcome: string | null; body: string; file_name: string; delivered: boolean }>(
      `SELECT m.id, m.status, m.outcome, r.body, r.file_name, r.delivered_at IS NOT NULL AS delivered
         FROM messages m JOIN responses r ON r.message_id = m.id WHERE m.id = ANY($1::text[])`,
      [ids],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return Promise.all(ids.map(async (id) => {
      const row = byId.get(id);
      assert.ok(row, `${id} has a response`);
      const file = await readFile(join(gateway.outbox('demo-employer'), row.file_name), 'utf8');
      assert.equal(file, row.body, 'the delivered file is the stored response');
      assert.equal(row.delivered, true);
      return { status: row.status, outcome: row.outcome, body: file.replace(new RegExp(`${label}|${id}`, 'g'), '…').replace(/<CreatedAt>[^<]*</, '<CreatedAt>…<') };
    }));
  }

  test('with the hand-off and without it, every stage reaches the same result, and a delivered document leaves nothing behind', async () => {
    const handOff = new HandOff();
    const handed = await runThrough('handed', handOff);
    assert.deepEqual([handOff.raw.size, handOff.documents.size, handOff.responses.size], [0, 0, 0]);

    const nothingHeld = new HandOff(0);
    const read = await runThrough('read', nothingHeld);
    assert.deepEqual(read, handed);
    assert.deepEqual(read.map((r) => `${r.status}/${r.outcome}`), ['applied/accepted', 'applied/partially_accepted', 'rejected/rejected']);
  });

  test('each stage finds what the one before handed over', async () => {
    const handOff = new HandOff();
    const deps: PipelineDeps = { ...gateway.deps, handOff, scheduler: { enqueue: async () => undefined, requeue: async () => undefined } };
    const receipt = await createIntake(deps).receive({
      channel: 'folder', counterpartyId: 'demo-employer', externalId: 'step-by-step.xml', receivedAt: new Date(),
      content: { bytes: Buffer.from(salaryAdjustment({ messageId: 'step-1', agreementNumber: 'AGR-1001' }, [{ pin: PERSONS.anna, date: '2026-11-02', salary: '520000.00' }])) },
      metadata: { fileName: 'step-by-step.xml' },
    });
    const id = receipt.messageId;
    assert.ok(handOff.raw.has(id), 'intake hands the bytes to validation');
    await validateMessages(deps, [id]);
    assert.equal(handOff.raw.has(id), false);
    assert.equal((JSON.parse(handOff.documents.get(id) ?? '{}') as { items?: { annualSalary: string }[] }).items?.[0]?.annualSalary, '520000.00');
    await applyMessages(deps, [id]);
    assert.deepEqual([handOff.documents.has(id), handOff.responses.get(id)?.documentType], [false, 'SalaryAdjustmentResponse']);
    await deliverResponses(deps, [id]);
    assert.equal(handOff.responses.has(id), false);
  });

  test('a validation job run again after its worker died before handing its documents on hands them to apply', async () => {
    const handedOn: [string, readonly string[]][] = [];
    const recording = { enqueue: async (stage: string, ids: readonly string[]) => void handedOn.push([stage, ids]), requeue: async () => undefined };
    const deps: PipelineDeps = { ...gateway.deps, scheduler: recording as PipelineDeps['scheduler'] };
    const receipt = await createIntake(deps).receive({
      channel: 'folder', counterpartyId: 'demo-employer', externalId: 'rerun.xml', receivedAt: new Date(),
      content: { bytes: Buffer.from(salaryAdjustment({ messageId: 'rerun-1', agreementNumber: 'AGR-1001' }, [{ pin: PERSONS.anna, date: '2026-11-03', salary: '530000.00' }])) },
      metadata: { fileName: 'rerun.xml' },
    });
    const id = receipt.messageId;
    // The first run validates it; its worker dies before apply gets it (the hand-over is lost).
    await validateMessages({ ...deps, scheduler: { enqueue: async () => undefined, requeue: async () => undefined } }, [id]);
    handedOn.length = 0;
    await validateMessages(deps, [id]);
    assert.deepEqual(handedOn.filter(([stage]) => stage === 'apply'), [['apply', [id]]]);
  });
});
