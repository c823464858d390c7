import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import type { PipelineStage } from '../ledger/messages/messages.repository.ts';
import { CarryOnScheduler } from './carry-on.scheduler.ts';
import type { EnqueueOptions, StageScheduler } from './pipeline-deps.ts';

/** Records what reaches the queues. */
function recordingQueues(): StageScheduler & { calls: [PipelineStage, readonly string[], boolean][] } {
  const calls: [PipelineStage, readonly string[], boolean][] = [];
  return {
    calls,
    enqueue: async (stage: PipelineStage, ids: readonly string[], options: EnqueueOptions = {}) => void calls.push([stage, ids, options.separately ?? false]),
    requeue: async (stage: PipelineStage, id: string) => void calls.push([stage, [id], true]),
  };
}

test('validation and whatever the reconciler re-enqueues go on the queues; apply and delivery run at once', async () => {
  const queues = recordingQueues();
  const ran: [string, readonly string[]][] = [];
  const scheduler = new CarryOnScheduler(queues, {
    apply: async (ids) => (ran.push(['apply', ids]), new Map()),
    deliver: async (ids) => (ran.push(['deliver', ids]), new Map()),
  });
  await scheduler.enqueue('validate', ['m1', 'm2']);
  await scheduler.enqueue('apply', ['m1', 'm2']);
  await scheduler.enqueue('deliver', ['m1']);
  await scheduler.enqueue('apply', ['m3'], { separately: true });
  await scheduler.enqueue('deliver', []);
  assert.deepEqual(ran, [['apply', ['m1', 'm2']], ['deliver', ['m1']]]);
  assert.deepEqual(queues.calls, [['validate', ['m1', 'm2'], false], ['apply', ['m3'], true]]);
});

test('what a stage could not finish goes on its queue one message per job', async () => {
  const queues = recordingQueues();
  const scheduler = new CarryOnScheduler(queues, {
    apply: async () => new Map([['m2', new Error('waits for an earlier document')]]),
    deliver: async () => new Map(),
  });
  await scheduler.enqueue('apply', ['m1', 'm2', 'm3']);
  assert.deepEqual(queues.calls, [['apply', ['m2'], true]]);
});

test('a stage that throws hands its whole batch to the queue, and the error is reported', async () => {
  const queues = recordingQueues();
  const reported: [PipelineStage, unknown][] = [];
  const failure = new Error('database away');
  const scheduler = new CarryOnScheduler(
    queues,
    { apply: async () => new Map(), deliver: async () => Promise.reject(failure) },
    (stage, error) => reported.push([stage, error]),
  );
  await scheduler.enqueue('deliver', ['m1', 'm2']);
  assert.deepEqual(queues.calls, [['deliver', ['m1', 'm2'], false]]);
  assert.deepEqual(reported, [['deliver', failure]]);
});
