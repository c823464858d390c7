/**
 * Where the document store keeps its archive files when they do not live in the data
 * folder: an object store (today S3-compatible, `s3-archive-bucket.ts`). Keys are the
 * store's own relative names (`archive/<name>.gz`); the adapter places them in its
 * bucket (under its prefix) and names bucket and key in every error it raises.
 *
 * Invariant: `put` resolves only once the store has taken the whole object — that is
 * the point from which the archive's locations may be recorded, as the fsync is for a
 * file of the data folder.
 */
export interface ArchiveBucket {
  /** Where the objects are, for messages: `s3://<bucket>/<prefix>`. */
  readonly where: string;
  /** Stores the parts, one after the other, as one object under `key` (replacing one there). */
  put(key: string, parts: readonly Uint8Array[]): Promise<void>;
  /** The object's bytes from `start`, `length` of them; fails if the object or the range is not there. */
  readRange(key: string, start: number, length: number): AsyncIterable<Uint8Array>;
  /** Removes the object (one already gone is no error). */
  remove(key: string): Promise<void>;
  /** Lets go of connections; the bucket is not used after. */
  close(): Promise<void>;
}
