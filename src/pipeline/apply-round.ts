import type { InMemoryApplyState } from '../ledger/messages/in-memory-apply.repository.ts';
import type { Candidate } from './apply-candidates.ts';
import type { ValidatedDocument } from './pipeline-deps.ts';

/**
 * What the apply loop (apply-loop.ts) does with each document of a round, decided from
 * what the message store said in the round's first statement: the rules of order that
 * the apply queue keeps too (apply.stage.ts), for documents held validated in memory.
 */
/**
 * What a round decided for one of its documents: applied now; waits here for its key,
 * which another transaction holds, or for an older document of its sender that a
 * validation job of this process is still validating; goes to the apply queue; or is
 * gone (finished by another worker).
 */
export type Fate = 'apply' | 'wait-for-key' | 'wait-for-older' | 'queue' | 'gone';

/**
 * Where this process knows an unvalidated (`received`) message, older than a round's
 * newest document, to be:
 * - 'in another lane': held validated in memory by another lane of the apply loop, so
 *   its key is none of this round's keys and nothing here waits for it;
 * - 'on its way': this process will hand it to the loop, or has handed it to this lane
 *   after the round chose its documents (its key may be one of the round's: documents
 *   of its sender behind it wait for the next round), or a validation job of this
 *   process is validating it (its key not known yet: the same).
 * Undefined: nobody here has it; documents of its sender behind it go to the queue.
 */
export type Whereabouts = 'in another lane' | 'on its way' | undefined;

export interface RoundPlan {
  /** Ours to apply now, oldest first. */
  readonly ours: Candidate[];
  /** The keys' validated backlog to apply before them. */
  readonly backlog: InMemoryApplyState['backlog'][number][];
  readonly fates: Map<string, Fate>;
  readonly seqs: Map<string, number>;
}

/** Where an unvalidated message counts: its sender and, when intake read it, its key. */
function olderSlot(counterpartyId: string, orderingKey: string | null): string {
  return orderingKey === null ? counterpartyId : `${counterpartyId}\u0000${orderingKey}`;
}

export function seqOf(candidate: Candidate, plan: RoundPlan): number {
  return plan.seqs.get(candidate.id) ?? Number.MAX_SAFE_INTEGER;
}

/**
 * What each document of a round does (see Fate). A key stops at its first document
 * that cannot go: its later ones share that fate. Backlog documents (validated in the
 * store) come first where older; one that cannot go stays where it is, on the queue.
 */
export function planRound(
  documents: readonly ValidatedDocument[],
  state: InMemoryApplyState,
  whereabouts: (messageId: string) => Whereabouts,
  /** Documents that waited for their key long enough: they go to the queue if it is still held. */
  impatient: ReadonlySet<string> = new Set(),
): RoundPlan {
  const fates = new Map<string, Fate>();
  const seqs = new Map<string, number>();
  // Per sender, the oldest document not validated yet that this process will hand over, and the oldest it will not:
  // among those whose key intake could not read (by sender alone) and per key it read (sender and key).
  const oldestExpected = new Map<string, number>();
  const oldestUnknown = new Map<string, number>();
  for (const message of state.received) {
    const where = whereabouts(message.id);
    if (where === 'in another lane') continue;
    const into = where === 'on its way' ? oldestExpected : oldestUnknown;
    const slot = olderSlot(message.counterpartyId, message.orderingKey);
    if (!into.has(slot)) into.set(slot, message.seq);
  }
  const oldest = (from: Map<string, number>, counterpartyId: string, orderingKey: string) =>
    Math.min(from.get(olderSlot(counterpartyId, null)) ?? Infinity, from.get(olderSlot(counterpartyId, orderingKey)) ?? Infinity);
  const held: { id: string; seq: number; counterpartyId: string; orderingKey: string; ours?: ValidatedDocument }[] = [];
  for (const document of documents) {
    const status = state.statusOf.get(document.id);
    if (status !== 'received' && status !== 'validated') {
      fates.set(document.id, 'gone');
      continue;
    }
    held.push({ ...document, ours: document });
  }
  for (const message of state.backlog) held.push(message);
  held.sort((a, b) => a.seq - b.seq);

  const stopped = new Map<string, Fate>();
  const ours: Candidate[] = [];
  const backlog: InMemoryApplyState['backlog'][number][] = [];
  for (const entry of held) {
    seqs.set(entry.id, entry.seq);
    let fate: Fate = stopped.get(entry.orderingKey) ?? 'apply';
    if (fate === 'apply') {
      if (!state.locked.has(entry.orderingKey)) fate = impatient.has(entry.id) ? 'queue' : 'wait-for-key';
      else if (oldest(oldestUnknown, entry.counterpartyId, entry.orderingKey) < entry.seq) fate = 'queue';
      else if (oldest(oldestExpected, entry.counterpartyId, entry.orderingKey) < entry.seq) fate = 'wait-for-older';
      if (fate !== 'apply') stopped.set(entry.orderingKey, fate);
    }
    if (!entry.ours) {
      if (fate === 'apply') backlog.push(entry as InMemoryApplyState['backlog'][number]);
      continue;
    }
    fates.set(entry.id, fate);
    if (fate === 'apply') {
      const { document: typed, ...rest } = entry.ours;
      ours.push({
        id: rest.id, counterpartyId: rest.counterpartyId, channel: rest.channel, externalId: rest.externalId, messageType: rest.messageType,
        orderingKey: rest.orderingKey, metadata: rest.metadata, document: typed, from: state.statusOf.get(rest.id) === 'validated' ? 'validated' : 'received',
      });
    }
  }
  return { ours, backlog, fates, seqs };
}

