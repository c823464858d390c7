import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable, Transform, pipeline as pipe } from 'node:stream';
import { createGunzip, gunzipSync, gzipSync } from 'node:zlib';
import { GatewayError } from '../../core/gateway-error.ts';
import type { ArchiveBucket } from './archive-bucket.ts';

/**
 * The document store: received documents too large for a database row — a custodian's
 * daily Holdings can be hundreds of megabytes — kept as files under
 * `<dataDir>/documents/<received date>/<message id>.xml`. The message row records the
 * file's place (`raw_location`), size and sha256.
 *
 * Invariant: a document is in the store, complete and fsynced under its final name,
 * before intake records its message; the sender is acknowledged only after that.
 * Files are written once and never changed.
 *
 * Archive files (message retention) are kept in the data folder too, or, given an
 * `archiveBucket`, as objects of an object store; a location in the bucket starts with
 * `s3:`, so what was archived to the data folder before a bucket was configured is
 * still read from there.
 */
export interface StoredDocument {
  readonly location: string;
  readonly sha256: string;
  readonly sizeBytes: number;
}

/**
 * Chunk size for reading a stored document back. Readers decode the chunks to text
 * (a report's splitter): Node makes a decoded chunk of about 1 MB an external string,
 * which only a full collection frees, so 1 MB chunks held some 80 MB of dead text
 * while a million-position Holdings was loaded (peak 350 MB against 232 MB now). At
 * 32 KB the text is an ordinary young string that dies in the next scavenge; 64 KB
 * was no better and 256 KB already worse (307 MB).
 */
export const READ_CHUNK_BYTES = 32 * 1024;

/**
 * A document kept in an archive file: `archive/<name>.gz@<offset>+<length>` (its gzip
 * member), `s3:archive/<name>.gz@…` when the file is an object of the archive bucket.
 */
const ARCHIVE_MEMBER = /^((s3:)?(archive\/[^@]+\.gz))@(\d+)\+(\d+)$/;
const IN_BUCKET = 's3:';

export interface DocumentStoreOptions {
  /** Where new archive files go; without it, `<root>/archive`. */
  readonly archiveBucket?: ArchiveBucket | undefined;
}

export class DocumentStore {
  readonly #root: string;
  readonly #bucket: ArchiveBucket | undefined;

  constructor(root: string, options: DocumentStoreOptions = {}) {
    this.#root = resolve(root);
    this.#bucket = options.archiveBucket;
  }

  /** Copies a file into the store, hashing it on the way; the source is left where it is. */
  async keepFile(messageId: string, receivedAt: Date, sourcePath: string): Promise<StoredDocument> {
    return this.#write(messageId, receivedAt, createReadStream(sourcePath, { highWaterMark: 1 << 20 }));
  }

  /** Keeps bytes already in memory (a large document posted over HTTP). */
  async keepBytes(messageId: string, receivedAt: Date, bytes: Uint8Array): Promise<StoredDocument> {
    return this.#write(messageId, receivedAt, Readable.from([Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]));
  }

  /** Reads a stored document as a stream of chunks of at most READ_CHUNK_BYTES. */
  read(location: string): AsyncIterable<Uint8Array> {
    const member = ARCHIVE_MEMBER.exec(location);
    if (!member) return createReadStream(this.#inside(location), { highWaterMark: READ_CHUNK_BYTES });
    const [, file, inBucket, key, offset, length] = member;
    const start = Number(offset);
    if (inBucket) return gunzipped(this.#archiveBucket(file!).readRange(key!, start, Number(length)), file!);
    return gunzipped(createReadStream(this.#inside(file!), { start, end: start + Number(length) - 1, highWaterMark: READ_CHUNK_BYTES }), file!);
  }

  /**
   * Keeps documents' bytes in one archive file, `archive/<name>.gz`: each document one
   * gzip member, one after the other, so the file is an ordinary gzip file (`zcat`
   * prints every document) and each document is read back alone from its offset. The
   * file is fsynced under its final name (or, with an archive bucket, stored by one
   * PUT) before the locations are returned; `name` must be new (a rerun of a run that
   * did not commit writes the same name again).
   */
  async archive(name: string, documents: readonly { readonly messageId: string; readonly bytes: Uint8Array }[]): Promise<Map<string, string>> {
    const relativeFile = `archive/${name}.gz`;
    const file = this.#bucket ? `${IN_BUCKET}${relativeFile}` : relativeFile;
    const locations = new Map<string, string>();
    const members: Buffer[] = [];
    let offset = 0;
    for (const { messageId, bytes } of documents) {
      const member = gzipSync(bytes);
      members.push(member);
      locations.set(messageId, `${file}@${offset}+${member.byteLength}`);
      offset += member.byteLength;
    }
    if (this.#bucket) {
      await this.#bucket.put(relativeFile, members);
      return locations;
    }
    const target = this.#inside(relativeFile);
    const temporary = `${target}.tmp`;
    try {
      await mkdir(join(this.#root, 'archive'), { recursive: true, mode: 0o700 });
      await writeFile(temporary, members, { mode: 0o600 });
      const handle = await open(temporary, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, target);
      const folder = await open(join(this.#root, 'archive'), 'r');
      try {
        await folder.sync();
      } finally {
        await folder.close();
      }
    } catch (error) {
      await rm(temporary, { force: true });
      throw new GatewayError('INTERNAL_ERROR', `Could not write the archive ${target}: ${(error as Error).message}`, { cause: error });
    }
    return locations;
  }

  /**
   * Several documents of one archive file, read with one read of the file's span that
   * holds them (one ranged GET in the archive bucket) instead of one read each: how a
   * whole file is read back to be written again (retention's masking). A span over
   * MAX_SPAN_BYTES is read member by member instead.
   */
  async readMembers(locations: readonly string[]): Promise<Buffer[]> {
    const members = locations.map((location) => {
      const member = ARCHIVE_MEMBER.exec(location);
      if (!member) throw new GatewayError('INTERNAL_ERROR', `${location} is not a document of an archive file.`);
      const [, file, inBucket, key, offset, length] = member;
      return { location, file: file!, inBucket: inBucket !== undefined, key: key!, start: Number(offset), length: Number(length) };
    });
    const [first] = members;
    if (!first) return [];
    if (members.some((member) => member.file !== first.file)) throw new GatewayError('INTERNAL_ERROR', `The documents asked for are not all of ${first.file}.`);
    const from = Math.min(...members.map((member) => member.start));
    const to = Math.max(...members.map((member) => member.start + member.length));
    if (to - from > MAX_SPAN_BYTES) return Promise.all(members.map(async (member) => Buffer.concat(await chunksOf(this.read(member.location)))));
    const source = first.inBucket
      ? this.#archiveBucket(first.file).readRange(first.key, from, to - from)
      : createReadStream(this.#inside(first.file), { start: from, end: to - 1, highWaterMark: 1 << 20 });
    let span: Buffer;
    try {
      span = Buffer.concat(await chunksOf(source));
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      throw new GatewayError('INTERNAL_ERROR', `Could not read the archive ${first.file}: ${(error as Error).message}`, { cause: error });
    }
    if (span.byteLength !== to - from) throw new GatewayError('INTERNAL_ERROR', `The archive ${first.file} is shorter than its documents' locations.`);
    return members.map((member) => gunzipSync(span.subarray(member.start - from, member.start - from + member.length)));
  }

  /**
   * The archive file a location is a member of (`archive/<name>.gz`, or
   * `s3:archive/<name>.gz` in the archive bucket), or undefined for a document's own file.
   */
  static archiveOf(location: string): string | undefined {
    return ARCHIVE_MEMBER.exec(location)?.[1];
  }

  /** Removes an archive file none of whose members is referred to any more (a file already gone is no error). */
  async removeArchive(file: string): Promise<void> {
    const [, , inBucket, key] = ARCHIVE_MEMBER.exec(`${file}@0+0`) ?? [];
    if (!key) throw new GatewayError('INTERNAL_ERROR', `${file} is not an archive file.`);
    if (inBucket) await this.#archiveBucket(file).remove(key);
    else await rm(this.#inside(file), { force: true });
  }

  async #write(messageId: string, receivedAt: Date, source: NodeJS.ReadableStream): Promise<StoredDocument> {
    const folder = join(this.#root, receivedAt.toISOString().slice(0, 10));
    const target = join(folder, `${messageId}.xml`);
    const temporary = `${target}.tmp`;
    const hash = createHash('sha256');
    let sizeBytes = 0;
    const hashing = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        sizeBytes += chunk.byteLength;
        done(null, chunk);
      },
    });
    try {
      // The gateway's user only: nobody fetches these over SFTP.
      await mkdir(folder, { recursive: true, mode: 0o700 });
      await pipeline(source, hashing, createWriteStream(temporary, { flags: 'wx', mode: 0o600 }));
      const handle = await open(temporary, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw new GatewayError('INTERNAL_ERROR', `Could not keep the document in ${folder}: ${(error as Error).message}`, { cause: error });
    }
    return { location: relative(this.#root, target), sha256: hash.digest('hex'), sizeBytes };
  }

  /** The bucket that holds an `s3:` archive file: one archived there cannot be read once the setting is gone. */
  #archiveBucket(file: string): ArchiveBucket {
    if (this.#bucket) return this.#bucket;
    throw new GatewayError('INTERNAL_ERROR', `${file} is in the archive bucket, and retention.archive.s3 is not configured.`);
  }

  /** A location is relative to the store; anything that climbs out of it is refused. */
  #inside(location: string): string {
    const path = resolve(this.#root, location);
    if (!path.startsWith(this.#root + sep)) throw new GatewayError('INTERNAL_ERROR', `Document location ${location} is outside the store.`);
    return path;
  }
}

/** The most of an archive file `readMembers` reads at once. */
const MAX_SPAN_BYTES = 64 * 1024 * 1024;

async function chunksOf(source: AsyncIterable<Uint8Array>): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(Buffer.from(chunk));
  return chunks;
}

/**
 * An archived document: its gzip member, inflated, in chunks of at most
 * READ_CHUNK_BYTES. A failure of the source (a file or an object gone) ends the reading
 * with an error naming the archive, instead of going unheard on a piped stream.
 */
async function* gunzipped(member: AsyncIterable<Uint8Array>, file: string): AsyncIterable<Uint8Array> {
  const gunzip = createGunzip({ chunkSize: READ_CHUNK_BYTES });
  pipe(member, gunzip, () => {});
  try {
    yield* gunzip;
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    throw new GatewayError('INTERNAL_ERROR', `Could not read a document of the archive ${file}: ${(error as Error).message}`, { cause: error });
  }
}
