import { open } from 'node:fs/promises';
import { request, type ClientRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * POSTs a file to the gateway without holding it in memory: it is read into one buffer
 * that is sent and reused once the socket has taken it, so the CLI's memory stays the
 * same whatever the file's size. (fetch with a stream body reads ahead of the socket
 * and held most of a 200 MB file; a piped read stream leaves a chunk of garbage per
 * read until the next collection.) Answers the gateway's response as a fetch Response.
 */
const CHUNK_BYTES = 1 << 20;

export async function postFile(url: string, headers: Readonly<Record<string, string>>, path: string): Promise<Response> {
  const file = await open(path);
  try {
    const { size } = await file.stat();
    const outgoing = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(size) } });
    let answer: Response | undefined;
    const answered = responseOf(outgoing).then((response) => (answer = response));
    // Handled where it is awaited below; an answer before the whole body was sent (a refusal) ends the sending.
    answered.catch(() => undefined);
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(size, 1)));
    let sent = 0;
    try {
      while (sent < size && !answer) {
        const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, size - sent), sent);
        if (bytesRead === 0) throw new Error(`${path} became shorter while it was sent`);
        await write(outgoing, buffer.subarray(0, bytesRead));
        sent += bytesRead;
      }
      outgoing.end();
    } catch (error) {
      // The gateway may have answered and closed the connection: its answer says more than the broken write.
      outgoing.destroy();
      const early = await Promise.race([answered, sleep(200, undefined, { ref: false })]).catch(() => undefined);
      if (early) return early;
      throw error;
    }
    return await answered;
  } finally {
    await file.close();
  }
}

function write(outgoing: ClientRequest, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => outgoing.write(chunk, (error) => (error ? reject(error) : resolve())));
}

function responseOf(outgoing: ClientRequest): Promise<Response> {
  return new Promise((resolve, reject) => {
    outgoing.once('error', reject);
    outgoing.once('response', (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.once('error', reject);
      incoming.once('end', () => {
        const type = incoming.headers['content-type'];
        resolve(new Response(Buffer.concat(chunks), { status: incoming.statusCode ?? 500, headers: type ? { 'content-type': type } : {} }));
      });
    });
  });
}
