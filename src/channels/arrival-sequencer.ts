/**
 * Keeps one counterparty's inbox files in arrival order on their way into intake.
 * Files are waited on and read in parallel, but handed to intake in turns, the oldest
 * first by (mtime, name): the order the sender finished writing them. A turn is every
 * file that may go now, released in that order (the watcher records them together);
 * the next turn begins when every file of this one is done. Intake
 * numbers documents in the order it records them, and documents for the same
 * agreement are applied in that order, so an employer that drops a purchase and then
 * a billing stop for the new insurance in one go gets them applied in that order.
 *
 * A file may go when no other file being taken might be older: every other file is
 * either younger, or still being written with a newer mtime. A file not yet looked
 * at holds the line only until its first stat (a moment). Files beyond the watcher's
 * in-flight window are not known here; they keep the order in which they were listed.
 */
interface Entry {
  readonly path: string;
  /** The newest mtime seen while the file was being watched; undefined before the first stat. */
  mtimeMs?: number;
  name?: string;
  /** Set once the file is stable and read: it waits for its turn. */
  go?: () => void;
}

export class ArrivalSequencer {
  readonly #entries = new Map<string, Entry>();
  /** The files of the current turn that are not done yet. */
  readonly #turn = new Set<string>();

  /** A file is being taken: it takes part in the ordering from now on. */
  register(path: string): void {
    if (!this.#entries.has(path)) this.#entries.set(path, { path });
  }

  /** The file's mtime as just seen (it may still change while the file is written). */
  observe(path: string, mtimeMs: number): void {
    const entry = this.#entries.get(path);
    if (entry) entry.mtimeMs = mtimeMs;
    this.#next();
  }

  /** Resolves when it is this stable file's turn with intake; call `done` afterwards. */
  turn(path: string, mtimeMs: number, name: string): Promise<void> {
    const entry = this.#entries.get(path);
    if (!entry) return Promise.reject(new Error(`${path} was not registered`));
    entry.mtimeMs = mtimeMs;
    entry.name = name;
    const turn = new Promise<void>((resolve) => {
      entry.go = resolve;
    });
    // Released a moment later, once the caller waits on `turn`: the files of a turn then
    // resume in release order, this one included, and reach intake in that order.
    queueMicrotask(() => this.#next());
    return turn;
  }

  /** The file is recorded, failed or gone (whether or not it had its turn): the next may go. */
  done(path: string): void {
    this.#entries.delete(path);
    this.#turn.delete(path);
    this.#next();
  }

  /** Files taking part in the ordering now. */
  get size(): number {
    return this.#entries.size;
  }

  #next(): void {
    if (this.#turn.size > 0) return;
    const ready: Entry[] = [];
    let oldestWaiting: Entry | undefined;
    for (const entry of this.#entries.values()) {
      if (entry.go !== undefined) ready.push(entry);
      else if (entry.mtimeMs === undefined) return; // not yet looked at: it may be older than any
      else if (oldestWaiting === undefined || isOlder(entry, oldestWaiting)) oldestWaiting = entry;
    }
    // Every ready file older than every file still being written may go, oldest first.
    const goes = ready.filter((entry) => oldestWaiting === undefined || isOlder(entry, oldestWaiting)).sort((a, b) => (isOlder(a, b) ? -1 : 1));
    for (const entry of goes) this.#turn.add(entry.path);
    for (const entry of goes) {
      const go = entry.go;
      entry.go = undefined;
      go?.();
    }
  }
}

function isOlder(a: Entry, b: Entry): boolean {
  const am = a.mtimeMs ?? 0;
  const bm = b.mtimeMs ?? 0;
  return am !== bm ? am < bm : (a.name ?? a.path) < (b.name ?? b.path);
}
