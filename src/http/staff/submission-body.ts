import { createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { GatewayError } from '../../core/gateway-error.ts';
import type { Envelope } from '../../channels/envelope.ts';
import { newSubmissionWorkFile } from '../../channels/submission-work-file.ts';

/**
 * Reads the body of a staff submission (POST /api/messages) as it arrives, so that a
 * large one never sits in memory: up to `maxDocumentBytes` (nearly every document) it
 * is kept in memory and handed to intake as bytes; past that it goes on into a work
 * file (see submission-work-file.ts) handed over as a file, which intake hashes as a
 * stream and refuses with DOCUMENT_TOO_LARGE (or, a custodian's report, keeps in the
 * document store) — the answer every other channel gives such a document.
 *
 * Past `maxReportBytes`, the most the gateway ever keeps, nothing more is written: the
 * rest of the body is read and dropped (so the client gets the answer rather than a
 * broken connection) and the request is refused with DOCUMENT_TOO_LARGE, unrecorded.
 */
export interface SubmissionBody {
  readonly content: Envelope['content'];
  /** The work file holding the body, when it was too large to keep in memory. */
  readonly workFile?: string;
}

export interface SubmissionLimits {
  readonly maxDocumentBytes: number;
  readonly maxReportBytes: number;
}

export async function readSubmissionBody(body: Readable, dataDir: string, name: string, limits: SubmissionLimits): Promise<SubmissionBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  let file: { path: string; stream: WriteStream } | undefined;
  let writeError: Error | undefined;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.byteLength;
      if (size > limits.maxReportBytes) continue;
      if (!file && size <= limits.maxDocumentBytes) {
        chunks.push(chunk);
        continue;
      }
      if (!file) {
        const path = await newSubmissionWorkFile(dataDir, name);
        const stream = createWriteStream(path, { flags: 'wx' });
        // Kept to be thrown in the loop: a write error between two awaits must not go unhandled.
        stream.on('error', (error) => (writeError ??= error));
        file = { path, stream };
        for (const held of chunks.splice(0)) stream.write(held);
      }
      if (writeError) throw writeError;
      if (!file.stream.write(chunk)) await once(file.stream, 'drain');
    }
    if (file) {
      file.stream.end();
      await once(file.stream, 'finish');
    }
  } catch (error) {
    await discard(file);
    throw error;
  }
  if (size > limits.maxReportBytes) {
    await discard(file);
    throw new GatewayError('DOCUMENT_TOO_LARGE', `The body is ${size} bytes; the most the gateway keeps is ${limits.maxReportBytes} bytes. It was not recorded.`);
  }
  if (!file) return { content: { bytes: Buffer.concat(chunks, size) } };
  return { content: { path: file.path, setAsidePath: file.path }, workFile: file.path };
}

async function discard(file: { path: string; stream: WriteStream } | undefined): Promise<void> {
  if (!file) return;
  file.stream.destroy();
  await rm(file.path, { force: true });
}
