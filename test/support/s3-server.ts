/**
 * A private S3-protocol server for the archive tests: s3rver in its maintained fork
 * (@20minutes/s3rver; s3rver 3 itself accepts any SigV4 signature, the fork checks
 * them), in this process, on a free loopback port, keeping its objects in a temp dir
 * that `destroy` removes. One bucket is made at start; its one account's keys are
 * S3RVER/S3RVER.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface S3rverOptions {
  readonly address: string;
  readonly port: number;
  readonly directory: string;
  readonly silent: boolean;
  readonly configureBuckets: readonly { readonly name: string }[];
}
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
// A CommonJS package without types: loaded as Node loads it.
const S3rver = createRequire(import.meta.url)('@20minutes/s3rver') as new (options: S3rverOptions) => S3rverInstance;

export interface S3Server {
  readonly endpoint: string;
  readonly region: string;
  readonly bucket: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Stops the server and removes its objects. */
  destroy(): Promise<void>;
}

export async function startS3Server(bucket = 'depot-archive'): Promise<S3Server> {
  const directory = await mkdtemp(join(tmpdir(), 'dg-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, configureBuckets: [{ name: bucket }] });
  try {
    const { port } = await server.run();
    return {
      endpoint: `http://127.0.0.1:${port}`, region: 'eu-north-1', bucket, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER',
      async destroy() {
        await server.close();
        await rm(directory, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
}
