import type { AppliedMessage } from '../ledger/messages/messages.repository.ts';

/** A response as apply stored it, with where it goes: the request's sender, channel and channel facts. */
export type HandedResponse = AppliedMessage['response'] & {
  readonly counterpartyId: string;
  readonly channel: string;
  readonly requestMetadata: Record<string, unknown>;
};

/**
 * Default bound of each kind: some 2,000 documents of 2 KB waiting between two stages,
 * far more than a busy gateway keeps there; a larger backlog waits in the message store.
 */
export const HAND_OFF_BYTES = 4 * 1024 * 1024;

/**
 * What a stage already holds for the next one in the same process: a received
 * document's bytes (intake → validate), its typed document (validate → apply), its
 * response (apply → deliver). The message store stays the truth and every stage still
 * reads status and order from it; the hand-off only spares reading back, and decoding
 * again, values that cannot change once written — the bytes of a message id, the
 * typed document read from them, the response stored for it. A stage that finds nothing
 * here (another process took the job, the entry made room for newer ones, a restart)
 * reads the message store as before, so correctness never depends on it.
 *
 * Each kind is bounded by bytes and gives up its oldest entries first: a backlog
 * larger than the bound is read from the store.
 */
export class HandOff {
  readonly raw: BoundedMap<Uint8Array>;
  /**
   * Typed documents as the JSON text stored in the message store: apply parses it, so a
   * handler gets the same fresh copy whichever way the document reached it.
   */
  readonly documents: BoundedMap<string>;
  readonly responses: BoundedMap<HandedResponse>;

  constructor(maxBytesEach = HAND_OFF_BYTES) {
    this.raw = new BoundedMap(maxBytesEach, (bytes) => bytes.byteLength);
    this.documents = new BoundedMap(maxBytesEach, (json) => json.length);
    // Response bodies are mostly ASCII: their length is close to their size in bytes.
    this.responses = new BoundedMap(maxBytesEach, (response) => response.body.length);
  }
}

/** A map that holds at most `maxBytes` of values (by `weigh`), dropping the oldest first. */
export class BoundedMap<V> {
  readonly #entries = new Map<string, { value: V; bytes: number }>();
  #bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly weigh: (value: V) => number,
  ) {}

  /** Keeps `value` unless it alone is over the bound. */
  set(key: string, value: V): void {
    const bytes = this.weigh(value);
    this.delete(key);
    if (bytes > this.maxBytes) return;
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.bytes;
    }
  }

  get(key: string): V | undefined {
    return this.#entries.get(key)?.value;
  }

  has(key: string): boolean {
    return this.#entries.has(key);
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  get bytes(): number {
    return this.#bytes;
  }
}
