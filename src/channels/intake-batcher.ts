import type { Envelope, IntakeOutcome, IntakePort, IntakeReceipt } from './envelope.ts';

/**
 * Gathers the envelopes a channel hands over in the same turn of the event loop and
 * gives them to intake together (`receiveMany`), in the order they were handed over:
 * a folder drop of many files costs intake one statement and one queue call instead
 * of one of each per file. Each caller still gets its own receipt or error.
 */
export class IntakeBatcher {
  #pending: { envelope: Envelope; resolve: (receipt: IntakeReceipt) => void; reject: (error: unknown) => void }[] = [];
  #scheduled = false;

  constructor(
    private readonly intake: IntakePort,
    private readonly maxBatch = 256,
  ) {}

  receive(envelope: Envelope): Promise<IntakeReceipt> {
    return new Promise<IntakeReceipt>((resolve, reject) => {
      this.#pending.push({ envelope, resolve, reject });
      if (this.#pending.length >= this.maxBatch) this.#flush();
      else if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#pending;
    this.#pending = [];
    if (batch.length === 0) return;
    void receiveAll(this.intake, batch.map((entry) => entry.envelope)).then(
      (outcomes) => {
        for (const [index, entry] of batch.entries()) {
          const outcome = outcomes[index];
          if (outcome && 'receipt' in outcome) entry.resolve(outcome.receipt);
          else entry.reject(outcome?.error ?? new Error('intake gave no outcome'));
        }
      },
      (error: unknown) => {
        for (const entry of batch) entry.reject(error);
      },
    );
  }
}

/** The envelopes through `receiveMany` when the port has it, else one `receive` after the other. */
async function receiveAll(intake: IntakePort, envelopes: readonly Envelope[]): Promise<IntakeOutcome[]> {
  if (envelopes.length > 1 && intake.receiveMany) return intake.receiveMany(envelopes);
  const outcomes: IntakeOutcome[] = [];
  for (const envelope of envelopes) outcomes.push(await intake.receive(envelope).then((receipt) => ({ receipt }), (error: unknown) => ({ error })));
  return outcomes;
}
