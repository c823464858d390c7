/**
 * Which of a counterparty's inbox files may go to intake now, and in what order: its
 * arrival order, oldest (mtime, then name) first, the order the sender finished writing
 * them. A turn is every complete file older than every file still being written; the
 * watcher hands a turn to intake together and starts the next when it is done.
 */
/** The last look at a file waiting in an inbox. */
export interface Look {
  readonly name: string;
  size: number;
  mtimeMs: number;
  /** Since when size and mtime have been seen unchanged. */
  unchangedSince: number;
  /** When it could be stable, to be looked at again; 0 once it is (it waits for its turn). */
  dueAt: number;
  /**
   * The size and mtime at which it was read and its document found to end before its
   * root element closes: still being written. Looked at again, it is read again only
   * once either has changed.
   */
  incompleteAt?: { readonly size: number; readonly mtimeMs: number } | undefined;
  /** Unchanged since it was found incomplete for longer than the grace: taken as it is (validation answers it). */
  takeAsItIs?: boolean;
}

/**
 * The files waiting in one inbox: those still to be looked at (just reported, or being
 * written) and those found complete, kept in arrival order as they complete — so a
 * full inbox (a drop of thousands of files) costs each turn the files it takes, not a
 * sort of all that wait.
 */
export class WaitingFiles {
  readonly #byName = new Map<string, Look>();
  /** To be looked at (again): dueAt above 0. */
  readonly #due = new Set<Look>();
  /** Complete, oldest first. */
  #complete: Look[] = [];

  get size(): number {
    return this.#byName.size;
  }

  has(name: string): boolean {
    return this.#byName.has(name);
  }

  /** A file just reported, to be looked at now. */
  add(name: string, now: number): void {
    if (this.#byName.has(name)) return;
    const look: Look = { name, size: -1, mtimeMs: 0, unchangedSince: now, dueAt: now };
    this.#byName.set(name, look);
    this.#due.add(look);
  }

  /** A waiting file changed after its last look: it is looked at again now, complete or not. */
  changed(name: string): boolean {
    const look = this.#byName.get(name);
    if (!look) return false;
    if (look.dueAt === 0) this.#complete.splice(this.#complete.indexOf(look), 1);
    look.dueAt = 1;
    this.#due.add(look);
    return true;
  }

  /** The files to look at again (their time has come). */
  dueBy(now: number): Look[] {
    return [...this.#due].filter((look) => look.dueAt <= now);
  }

  /** When the next file not due yet is, or Infinity. */
  nextDue(): number {
    let next = Infinity;
    for (const look of this.#due) next = Math.min(next, look.dueAt);
    return next;
  }

  /** A file looked at: complete (dueAt 0) goes in its place in arrival order. */
  looked(look: Look): void {
    if (look.dueAt !== 0) return;
    this.#due.delete(look);
    let low = 0;
    let high = this.#complete.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (isOlder(look, this.#complete[middle] as Look)) high = middle;
      else low = middle + 1;
    }
    this.#complete.splice(low, 0, look);
  }

  /**
   * A file taken out in a turn that goes back among the waiting instead: complete
   * (dueAt 0) in its place in arrival order, or to be looked at again at `dueAt`.
   */
  putBack(look: Look): void {
    this.#byName.set(look.name, look);
    if (look.dueAt === 0) this.looked(look);
    else this.#due.add(look);
  }

  /** A file gone (taken by someone else, removed by its sender) or taken. */
  remove(look: Look): void {
    this.#byName.delete(look.name);
    if (this.#due.delete(look)) return;
    const index = this.#complete.indexOf(look);
    if (index >= 0) this.#complete.splice(index, 1);
  }

  /**
   * Up to `limit` files that may go now, oldest (mtime, then name) first: the complete
   * ones older than every file still to be looked at or still being written. They are
   * taken out of the waiting files.
   */
  takeTurn(limit: number): Look[] {
    const turn = olderThanAll(this.#complete, this.#due, limit);
    this.#complete = this.#complete.slice(turn.length);
    for (const look of turn) this.#byName.delete(look.name);
    return turn;
  }

  clear(): void {
    this.#byName.clear();
    this.#due.clear();
    this.#complete = [];
  }
}

/** The leading files of `complete` (oldest first) older than every one of `incomplete`, up to `limit`. */
function olderThanAll(complete: readonly Look[], incomplete: Iterable<Look>, limit: number): Look[] {
  let oldestIncomplete: Look | undefined;
  for (const look of incomplete) if (oldestIncomplete === undefined || isOlder(look, oldestIncomplete)) oldestIncomplete = look;
  const turn: Look[] = [];
  for (const look of complete) {
    if (turn.length >= limit || (oldestIncomplete !== undefined && !isOlder(look, oldestIncomplete))) break;
    turn.push(look);
  }
  return turn;
}

/** A file never looked at (size -1) is taken to be older than any: it holds the line until its first look. */
function isOlder(a: Look, b: Look): boolean {
  if (a.size < 0 || b.size < 0) return a.size < 0 && b.size >= 0;
  return a.mtimeMs !== b.mtimeMs ? a.mtimeMs < b.mtimeMs : a.name < b.name;
}
