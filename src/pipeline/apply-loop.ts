import { markValidatedMany } from '../ledger/messages/messages.repository.ts';
import { readInMemoryApplyState } from '../ledger/messages/in-memory-apply.repository.ts';
import { applyCandidates, RunCarefully, StatusChanged, type Run } from './apply-candidates.ts';
import { planRound, seqOf, type Fate, type Whereabouts } from './apply-round.ts';
import { countFinished, withDocuments } from './apply.stage.ts';
import type { InMemoryApply, PipelineDeps, ValidatedDocument } from './pipeline-deps.ts';

/**
 * The apply loop of a worker process. Validation hands it the documents it has just
 * validated, typed documents in memory, and the loop applies everything handed over
 * since its last transaction in one transaction: handlers in waves, responses and final
 * statuses in one statement (apply-candidates.ts). Such a document goes from `received`
 * to its final status in that one transaction — its `validated` event is written with
 * its final one — so the message store is not written a third time per document, and a
 * busy gateway's transactions grow with its load.
 *
 * Invariants, as for the apply queue (apply.stage.ts):
 * - Exactly once: the ledger changes, the response and the final status are one
 *   transaction, guarded by the status each document has in the store; a document that
 *   changed status meanwhile rolls the transaction back and it runs again without it.
 * - Order: a key's documents are applied in arrival order, only under the key's advisory
 *   lock, after the key's validated backlog in the store, and never past an older
 *   document of the same sender whose key is not known yet.
 * - Nothing is lost: a document the loop cannot apply is written `validated` (with its
 *   typed document) and put on the apply queue, where it waits, retries and goes dead as
 *   any; when the transaction itself fails, `submit` rejects and the documents stay
 *   `received`, for their validation job to run again.
 *
 * A document behind an older one that a validation job of this process is still
 * validating (`expect`ed), or that was handed to its lane after the round chose its
 * documents, waits here for it; so does one whose key another transaction holds, up to
 * `maxLockWaitMs`. Everything else that cannot go now goes to the queue
 * (what decides: apply-round.ts).
 *
 * Lanes: the keys are shared among `lanes` loops by a hash, each with its own
 * transactions, so one lane's statements run in PostgreSQL while another's handlers run
 * here. A key's documents always take the same lane; a document held in another lane
 * has a known key, so it holds back no document of this one.
 */
export interface ApplyLoopOptions {
  /** Documents applied in one transaction at most. Default 500. */
  readonly maxDocuments?: number;
  /** How long a document waits for a key another transaction holds before it goes to the apply queue. Default 2000. */
  readonly maxLockWaitMs?: number;
  /** How soon documents that wait are looked at again when nothing else happens. Default 25. */
  readonly retryMs?: number;
  /** Loops the keys are shared among, each with its own transactions. Default 2. */
  readonly lanes?: number;
}

interface Pending {
  readonly document: ValidatedDocument;
  readonly done: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
  /** When it first found its key held by another transaction. */
  lockedSince?: number;
}

/** Times a round runs again when documents changed status under it. */
const MAX_STATUS_RETRIES = 3;

export class ApplyLoop implements InMemoryApply {
  readonly #lanes: Lane[];
  /** Message ids a validation job of this process is working on (how many jobs). */
  readonly #expected = new Map<string, number>();

  /** `deps` is asked when a round runs: the loop is part of the deps it is given. */
  constructor(deps: () => PipelineDeps, options: ApplyLoopOptions = {}) {
    const settings = { maxDocuments: options.maxDocuments ?? 500, maxLockWaitMs: options.maxLockWaitMs ?? 2000, retryMs: options.retryMs ?? 25 };
    const count = Math.max(1, options.lanes ?? 2);
    this.#lanes = Array.from({ length: count }, () => new Lane(deps, settings, (id, lane) => this.#whereabouts(id, lane)));
  }

  /** A validation job of this process is working on these messages: documents behind them wait here. */
  expect(ids: readonly string[]): void {
    for (const id of ids) this.#expected.set(id, (this.#expected.get(id) ?? 0) + 1);
  }

  /** The job is done with them (handed over, rejected or failed). */
  settle(ids: readonly string[]): void {
    for (const id of ids) {
      const count = (this.#expected.get(id) ?? 0) - 1;
      if (count > 0) this.#expected.set(id, count);
      else this.#expected.delete(id);
    }
    for (const lane of this.#lanes) lane.changed();
  }

  /**
   * Hands validated documents over. Resolves once each is applied and its delivery done
   * or queued, or written `validated` and put on the apply queue, or found finished by
   * another worker; rejects when the transaction fails (they stay `received`).
   */
  submit(documents: readonly ValidatedDocument[]): Promise<void> {
    const byLane = new Map<Lane, ValidatedDocument[]>();
    for (const document of documents) {
      const lane = this.#laneOf(document.orderingKey);
      const list = byLane.get(lane);
      if (list) list.push(document);
      else byLane.set(lane, [document]);
    }
    return Promise.all([...byLane].map(([lane, list]) => lane.submit(list))).then(() => undefined);
  }

  /** Documents handed over and not finished. */
  get size(): number {
    return this.#lanes.reduce((sum, lane) => sum + lane.size, 0);
  }

  #laneOf(key: string): Lane {
    if (this.#lanes.length === 1) return this.#lanes[0] as Lane;
    let hash = 0;
    for (let index = 0; index < key.length; index += 1) hash = (hash * 31 + key.charCodeAt(index)) | 0;
    return this.#lanes[(hash >>> 0) % this.#lanes.length] as Lane;
  }

  /**
   * Where a message older than a round of `lane` is (apply-round.ts). Held by a lane
   * first: a job's documents stay expected until it is done, though handed over. A
   * message `lane` holds is not in the round (the round's own are not asked about): it
   * was handed over after the round chose its documents, and goes in the next.
   */
  #whereabouts(id: string, lane: Lane): Whereabouts {
    if (lane.holds(id)) return 'on its way';
    if (this.#lanes.some((other) => other.holds(id))) return 'in another lane';
    return this.#expected.has(id) ? 'on its way' : undefined;
  }
}

interface LaneSettings {
  readonly maxDocuments: number;
  readonly maxLockWaitMs: number;
  readonly retryMs: number;
}

/** One loop of transactions over the documents of its keys. */
class Lane {
  readonly #deps: () => PipelineDeps;
  readonly #settings: LaneSettings;
  readonly #whereabouts: (id: string, lane: Lane) => Whereabouts;
  /** Handed over and not finished, by message id. */
  readonly #pending = new Map<string, Pending>();
  /** Something changed since the last round began (a hand-over, a validation job done). */
  #changed = false;
  #running: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(deps: () => PipelineDeps, settings: LaneSettings, whereabouts: (id: string, lane: Lane) => Whereabouts) {
    this.#deps = deps;
    this.#settings = settings;
    this.#whereabouts = whereabouts;
  }

  holds(id: string): boolean {
    return this.#pending.has(id);
  }

  get size(): number {
    return this.#pending.size;
  }

  /** Something this lane's waiting documents may wait for happened. */
  changed(): void {
    if (this.#pending.size > 0) this.#kick();
  }

  submit(documents: readonly ValidatedDocument[]): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const document of documents) {
      const known = this.#pending.get(document.id);
      if (known) {
        waits.push(known.done);
        continue;
      }
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const done = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.#pending.set(document.id, { document, done, resolve, reject });
      waits.push(done);
    }
    this.#kick();
    return Promise.all(waits).then(() => undefined);
  }

  #kick(): void {
    this.#changed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#running !== undefined) return; // the running loop sees the change
    this.#running = this.#run().finally(() => {
      this.#running = undefined;
      if (this.#changed && this.#pending.size > 0) this.#kick();
    });
  }

  /** Rounds while documents may go; when only waiting ones are left, a look again after `retryMs`. */
  async #run(): Promise<void> {
    while (this.#changed && this.#pending.size > 0) {
      this.#changed = false;
      const moved = await this.#round();
      if (moved) this.#changed = true;
    }
    if (this.#pending.size > 0 && this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#kick();
      }, this.#settings.retryMs);
      this.#timer.unref();
    }
  }

  /** One transaction over the oldest pending documents; true when any of them was finished. */
  async #round(): Promise<boolean> {
    const batch = [...this.#pending.values()].sort((a, b) => a.document.seq - b.document.seq).slice(0, this.#settings.maxDocuments);
    const deps = this.#deps();
    let outcome: RoundOutcome | undefined;
    for (let attempt = 0; outcome === undefined; attempt += 1) {
      try {
        outcome = await this.#attempt(deps, batch, false).catch((error: unknown) => {
          if (error instanceof RunCarefully) return this.#attempt(deps, batch, true);
          throw error;
        });
      } catch (error) {
        if (error instanceof StatusChanged && attempt < MAX_STATUS_RETRIES) continue;
        for (const entry of batch) {
          this.#pending.delete(entry.document.id);
          entry.reject(error);
        }
        deps.log.warn({ err: error, count: batch.length }, 'apply transaction failed; its documents go back to validation');
        return true;
      }
    }
    await this.#finish(deps, batch, outcome);
    return outcome.finished > 0;
  }

  async #attempt(deps: PipelineDeps, batch: readonly Pending[], careful: boolean): Promise<RoundOutcome> {
    const now = deps.clock();
    const impatient = new Set(batch.filter((entry) => entry.lockedSince !== undefined && Date.now() - entry.lockedSince >= this.#settings.maxLockWaitMs).map((entry) => entry.document.id));
    return deps.db.transaction(async (tx) => {
      const documents = batch.map((entry) => entry.document);
      const state = await readInMemoryApplyState(tx, {
        ids: documents.map((document) => document.id),
        counterpartyIds: [...new Set(documents.map((document) => document.counterpartyId))],
        newestSeq: Math.max(...documents.map((document) => document.seq)),
      }, [...new Set(documents.map((document) => document.orderingKey))].sort());
      const plan = planRound(documents, state, (id) => this.#whereabouts(id, this), impatient);
      const candidates = [...(await withDocuments(deps, tx, plan.backlog)), ...plan.ours].sort((a, b) => seqOf(a, plan) - seqOf(b, plan));
      const run = candidates.length > 0 ? await applyCandidates(deps, tx, candidates, now, careful) : emptyRun();
      // Ours that were not applied (a failed handler, a later document of its key, shutdown) go to the queue.
      for (const candidate of plan.ours) {
        if (!run.results.has(candidate.id)) plan.fates.set(candidate.id, 'queue');
      }
      const queued = documents.filter((document) => plan.fates.get(document.id) === 'queue' && state.statusOf.get(document.id) === 'received');
      await markValidatedMany(tx, queued.map((document) => ({
        id: document.id, messageType: document.messageType, orderingKey: document.orderingKey, documentJson: JSON.stringify(document.document),
      })));
      return { run, fates: plan.fates, finished: [...plan.fates.values()].filter((fate) => !fate.startsWith('wait')).length };
    });
  }

  /** After the commit: responses to delivery, the unapplied to the apply queue, and each hand-over answered. */
  async #finish(deps: PipelineDeps, batch: readonly Pending[], outcome: RoundOutcome): Promise<void> {
    const { run, fates } = outcome;
    for (const [id, response] of run.responses) deps.handOff?.responses.set(id, response);
    countFinished(deps, run);
    const now = Date.now();
    const finished: Pending[] = [];
    const queued: string[] = [];
    for (const entry of batch) {
      const { id } = entry.document;
      const fate = fates.get(id) ?? 'wait-for-older';
      if (fate === 'wait-for-key') entry.lockedSince ??= now;
      else entry.lockedSince = undefined;
      if (fate.startsWith('wait')) continue;
      this.#pending.delete(id);
      finished.push(entry);
      if (fate === 'queue') queued.push(id);
    }
    const appliedIds = [...run.results.keys()];
    // Delivery runs beside the next round; each hand-over is answered once its own part is done.
    const delivered = deps.scheduler.enqueue('deliver', appliedIds).catch((error: unknown) =>
      deps.log.warn({ err: error, count: appliedIds.length }, 'applied, delivery not started; the reconciler will deliver'));
    const handedOn = deps.scheduler.enqueue('apply', queued, { separately: true }).catch((error: unknown) =>
      deps.log.warn({ err: error, count: queued.length }, 'validated, not queued for apply; the reconciler will queue them'));
    void Promise.all([delivered, handedOn]).then(() => {
      for (const entry of finished) entry.resolve();
    });
  }
}

interface RoundOutcome {
  readonly run: Run;
  readonly fates: Map<string, Fate>;
  /** Documents the round finished (applied, queued or found gone). */
  readonly finished: number;
}

function emptyRun(): Run {
  return { results: new Map(), failures: new Map(), applied: [], responses: new Map() };
}
