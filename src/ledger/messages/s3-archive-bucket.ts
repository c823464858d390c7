import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GatewayError } from '../../core/gateway-error.ts';
import type { ArchiveBucket } from './archive-bucket.ts';

/**
 * The document store's archive files as objects of an S3-compatible bucket
 * (`retention.archive.s3`, docs/operations.md "Retention"), through the AWS SDK. The
 * composition root imports this module only when the setting is there, so a gateway
 * without it never loads the SDK.
 *
 * An archive file is one PUT of the whole file: S3 makes an object visible only once it
 * has all of it (and, with the SDK's default checksum, checked it), so a PUT that
 * succeeded is durable as an fsynced file is. A document is read back with a ranged GET
 * of its gzip member; a store that answers a range with other bytes than asked for is
 * refused rather than trusted.
 */
export interface S3ArchiveSettings {
  /** The store's address (https://s3.example.internal:9000); without it, AWS's for the region. */
  readonly endpoint?: string | undefined;
  readonly region: string;
  readonly bucket: string;
  /** Put before every key: `depot-gateway/` makes `depot-gateway/archive/<name>.gz`. */
  readonly prefix: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** `<endpoint>/<bucket>/<key>` instead of `<bucket>.<endpoint>/<key>` (most stores other than AWS). */
  readonly forcePathStyle: boolean;
}

/** A store that does not answer within these is treated as failed (the SDK retries first). */
const CONNECT_TIMEOUT_MS = 10_000;
const IDLE_TIMEOUT_MS = 60_000;

export class S3ArchiveBucket implements ArchiveBucket {
  readonly where: string;
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;

  constructor(settings: S3ArchiveSettings) {
    this.#bucket = settings.bucket;
    this.#prefix = settings.prefix;
    this.where = `s3://${settings.bucket}/${settings.prefix}`;
    this.#client = new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      forcePathStyle: settings.forcePathStyle,
      credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
      requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, socketTimeout: IDLE_TIMEOUT_MS },
    });
  }

  async put(key: string, parts: readonly Uint8Array[]): Promise<void> {
    try {
      await this.#client.send(new PutObjectCommand({ Bucket: this.#bucket, Key: this.#key(key), Body: Buffer.concat(parts), ContentType: 'application/gzip' }));
    } catch (error) {
      throw this.#failed('write', key, error);
    }
  }

  async *readRange(key: string, start: number, length: number): AsyncIterable<Uint8Array> {
    let body: unknown;
    try {
      const answer = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: this.#key(key), Range: `bytes=${start}-${start + length - 1}` }));
      body = answer.Body;
      if (answer.ContentLength !== length || !isAsyncIterable(body)) {
        throw new Error(`asked for bytes ${start}-${start + length - 1}, answered ${answer.ContentRange ?? `${answer.ContentLength ?? 'no'} bytes without a range`}`);
      }
    } catch (error) {
      if (isAsyncIterable(body)) destroy(body);
      throw this.#failed('read', key, error);
    }
    try {
      yield* body;
    } catch (error) {
      throw this.#failed('read', key, error);
    }
  }

  async remove(key: string): Promise<void> {
    try {
      await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.#key(key) }));
    } catch (error) {
      throw this.#failed('remove', key, error);
    }
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }

  #key(key: string): string {
    return `${this.#prefix}${key}`;
  }

  #failed(what: 'write' | 'read' | 'remove', key: string, error: unknown): GatewayError {
    const { name, message } = error as Error;
    const reason = name && name !== 'Error' && !message.startsWith(name) ? `${name}: ${message}` : message;
    return new GatewayError('INTERNAL_ERROR', `Could not ${what} the archive s3://${this.#bucket}/${this.#key(key)}: ${reason}`, { cause: error });
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/** An answer's body not read is closed, so that its connection is not held. */
function destroy(body: object): void {
  if ('destroy' in body && typeof body.destroy === 'function') (body as { destroy(): void }).destroy();
}
