import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import type { InMemoryApplyState } from '../ledger/messages/in-memory-apply.repository.ts';
import { planRound, type Whereabouts } from './apply-round.ts';
import type { ValidatedDocument } from './pipeline-deps.ts';

/** Which documents of a round go where: the rules of order the apply loop keeps, without a database. */

/** Whereabouts from the ids being validated here, and those held in another lane. */
const known = (inValidation: readonly string[] = [], inAnotherLane: readonly string[] = []) => (id: string): Whereabouts =>
  inValidation.includes(id) ? 'on its way' : inAnotherLane.includes(id) ? 'in another lane' : undefined;

const document = (id: string, seq: number, key: string, counterpartyId = 'employer'): ValidatedDocument => ({
  id, seq, counterpartyId, channel: 'folder', externalId: `${id}.xml`, metadata: {}, messageType: 'SalaryAdjustment', orderingKey: key, document: { id },
});

function state(parts: { locked: readonly string[]; received?: [string, number, string?, (string | null)?][]; backlog?: [string, number, string][]; statuses?: Record<string, string> }, ours: readonly ValidatedDocument[]): InMemoryApplyState {
  const statusOf = new Map(ours.map((d) => [d.id, (parts.statuses?.[d.id] ?? 'received') as never]));
  return {
    locked: new Set(parts.locked),
    statusOf,
    backlog: (parts.backlog ?? []).map(([id, seq, key]) => ({ id, seq, orderingKey: key, counterpartyId: 'employer', channel: 'folder', externalId: `${id}.xml`, messageType: 'SalaryAdjustment', metadata: {} })),
    received: (parts.received ?? []).map(([id, seq, counterpartyId, orderingKey]) => ({ id, seq, counterpartyId: counterpartyId ?? 'employer', orderingKey: orderingKey ?? null })),
  };
}

const fates = (plan: ReturnType<typeof planRound>) => Object.fromEntries(plan.fates);

test('documents of free keys with nothing older pending are applied, oldest first', () => {
  const ours = [document('b', 2, 'agreement:B'), document('a', 1, 'agreement:A'), document('c', 3, 'agreement:A')];
  const plan = planRound(ours, state({ locked: ['agreement:A', 'agreement:B'] }, ours), known());
  assert.deepEqual(fates(plan), { a: 'apply', b: 'apply', c: 'apply' });
  assert.deepEqual(plan.ours.map((candidate) => [candidate.id, candidate.from]), [['a', 'received'], ['b', 'received'], ['c', 'received']]);
});

test('a key another transaction holds: its documents wait, or go to the queue once they have waited long enough', () => {
  const ours = [document('a', 1, 'agreement:A'), document('b', 2, 'agreement:B')];
  const waiting = planRound(ours, state({ locked: ['agreement:B'] }, ours), known());
  assert.deepEqual(fates(waiting), { a: 'wait-for-key', b: 'apply' });
  const impatient = planRound(ours, state({ locked: ['agreement:B'] }, ours), known(), new Set(['a']));
  assert.deepEqual(fates(impatient), { a: 'queue', b: 'apply' });
});

test('an older document of the same sender not validated yet: wait for it when this process validates it, else the queue', () => {
  const ours = [document('a', 5, 'agreement:A'), document('other', 6, 'agreement:B', 'administrator')];
  const locked = new Set(['agreement:A', 'agreement:B']);
  const here = planRound(ours, state({ locked: [...locked], received: [['older', 3]] }, ours), known(['older']));
  assert.deepEqual(fates(here), { a: 'wait-for-older', other: 'apply' }, 'another sender is not held back');
  const elsewhere = planRound(ours, state({ locked: [...locked], received: [['older', 3]] }, ours), known());
  assert.deepEqual(fates(elsewhere), { a: 'queue', other: 'apply' });
  const younger = planRound(ours, state({ locked: [...locked], received: [['younger', 9]] }, ours), known());
  assert.deepEqual(fates(younger), { a: 'apply', other: 'apply' }, 'a younger unvalidated document holds nothing back');
});

test('an older unvalidated document whose key intake read holds back only the documents of that key', () => {
  const ours = [document('a', 5, 'agreement:A'), document('b', 6, 'agreement:B')];
  const locked = ['agreement:A', 'agreement:B'];
  const elsewhere = planRound(ours, state({ locked, received: [['older-a', 3, 'employer', 'agreement:A']] }, ours), known());
  assert.deepEqual(fates(elsewhere), { a: 'queue', b: 'apply' });
  const here = planRound(ours, state({ locked, received: [['older-b', 3, 'employer', 'agreement:B']] }, ours), known(['older-b']));
  assert.deepEqual(fates(here), { a: 'apply', b: 'wait-for-older' });
  const unread = planRound(ours, state({ locked, received: [['older-unread', 3, 'employer', null], ['older-b', 4, 'employer', 'agreement:B']] }, ours), known());
  assert.deepEqual(fates(unread), { a: 'queue', b: 'queue' }, 'a key intake could not read may be any key');
});

test('an older unvalidated document held in another lane of this process (its key known) holds nothing back', () => {
  const ours = [document('a', 5, 'agreement:A')];
  const plan = planRound(ours, state({ locked: ['agreement:A'], received: [['other-lane', 3]] }, ours), known([], ['other-lane']));
  assert.deepEqual(fates(plan), { a: 'apply' });
});

test('a key stops at its first document that cannot go: the later ones of that key share its fate', () => {
  const ours = [document('a1', 4, 'agreement:A'), document('b', 5, 'agreement:B', 'administrator'), document('a2', 7, 'agreement:A')];
  const plan = planRound(ours, state({ locked: ['agreement:A', 'agreement:B'], received: [['older', 3]] }, ours), known(['older']));
  assert.deepEqual(fates(plan), { a1: 'wait-for-older', b: 'apply', a2: 'wait-for-older' });
});

test('the validated backlog of a locked key goes first where it is older; a document already finished is gone', () => {
  const ours = [document('mine', 8, 'agreement:A'), document('done', 9, 'agreement:B')];
  const plan = planRound(ours, state({ locked: ['agreement:A', 'agreement:B'], backlog: [['queued', 6, 'agreement:A']], statuses: { done: 'applied' } }, ours), known());
  assert.deepEqual(fates(plan), { mine: 'apply', done: 'gone' });
  assert.deepEqual(plan.backlog.map((message) => message.id), ['queued']);
  assert.deepEqual([plan.seqs.get('queued'), plan.seqs.get('mine')], [6, 8]);
});

test('a backlog document held back holds back the younger documents of its key', () => {
  const ours = [document('mine', 8, 'agreement:A')];
  const plan = planRound(ours, { ...state({ locked: ['agreement:A'], backlog: [['queued', 6, 'agreement:A']] }, ours), received: [{ id: 'older', seq: 5, counterpartyId: 'employer', orderingKey: null }] }, known());
  assert.deepEqual(fates(plan), { mine: 'queue' });
  assert.deepEqual(plan.backlog, [], 'the backlog document stays on its queue');
});

test('a document another run already wrote validated is applied from there', () => {
  const ours = [document('a', 1, 'agreement:A')];
  const plan = planRound(ours, state({ locked: ['agreement:A'], statuses: { a: 'validated' } }, ours), known());
  assert.deepEqual(plan.ours.map((candidate) => candidate.from), ['validated']);
});
