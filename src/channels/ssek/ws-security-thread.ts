import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { GatewayError } from '../../core/gateway-error.ts';
import { checkRequestSignature, type SignatureRefusal, type SignedParts } from './ws-security.ts';
import type { SignatureCheck, SignatureThreadMessage } from './ws-security-worker.ts';

/**
 * WS-Security verification off the gateway's thread. xml-crypto's check of one signed
 * envelope is several milliseconds of CPU (it parses the envelope again, searches it with
 * XPath for each reference, canonicalises; docs/performance.md), and twenty envelopes
 * arriving together held the event loop for over a second: /readyz and every other
 * request waited. So the SSEK endpoint has the check made on a thread of its own
 * (ws-security-worker.ts): one per process, started with the first signed request,
 * shared by every gateway of the process, never stopped, and not keeping the process
 * alive while it has nothing to check. The gateway's thread only parses the envelope
 * (for the header, the Ids and the timestamp) and sends its text across; the thread
 * checks one request after another, in the order they came.
 *
 * What is checked, and against which certificate, is ws-security.ts's alone: the thread
 * runs the same function. Where the thread cannot be started the check runs on the
 * caller's thread, as it did before. A thread that stops (an error of its own: the check
 * catches the request's) fails the checks it held, which the sender is answered as
 * soap:Server (send the same envelope again); the next check starts another thread.
 */
let shared: Promise<SignatureThread | undefined> | undefined;

/** Checks the request's signature on the process's WS-Security thread; throws the refusal as a GatewayError. */
export async function verifyRequestSignatureOffThread(request: SignedParts, certificatePem: string, now: Date): Promise<void> {
  const thread = await processSignatureThread();
  const refusal = thread ? await thread.check(request, certificatePem, now) : checkRequestSignature(request, certificatePem, now);
  if (refusal) throw new GatewayError(refusal.code, refusal.text);
}

/** The process's WS-Security thread, started now if it is not running; undefined where it cannot be started. */
export function processSignatureThread(): Promise<SignatureThread | undefined> {
  if (shared) return shared;
  const starting: Promise<SignatureThread | undefined> = startSignatureThread(() => {
    if (shared === starting) shared = undefined;
  });
  shared = starting;
  return starting;
}

async function startSignatureThread(onStopped: () => void): Promise<SignatureThread | undefined> {
  const worker = import.meta.url.endsWith('.ts')
    ? // Run from the sources, the thread registers tsx itself (a --import of the process does not reach it).
      new Worker(
        `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./ws-security-worker.ts', import.meta.url).href)}); })`,
        { eval: true },
      )
    : new Worker(new URL('./ws-security-worker.js', import.meta.url));
  const startupError = (error: Error) => void error;
  worker.on('error', startupError);
  const ready = await Promise.race([
    (once(worker, 'message') as Promise<[SignatureThreadMessage]>).then(([message]) => message === 'ready', () => false),
    once(worker, 'exit').then(() => false),
  ]);
  worker.off('error', startupError);
  if (!ready) {
    // Checked on the caller's thread from now on: not started again for every request.
    await worker.terminate();
    return undefined;
  }
  return new SignatureThread(worker, onStopped);
}

interface Pending {
  resolve(refusal: SignatureRefusal | undefined): void;
  reject(error: Error): void;
}

export class SignatureThread {
  readonly #pending = new Map<number, Pending>();
  #next = 1;
  #stopped: Error | undefined;

  constructor(private readonly worker: Worker, private readonly onStopped: () => void) {
    worker.on('message', (message: SignatureThreadMessage) => {
      if (message === 'ready') return;
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      if (this.#pending.size === 0) worker.unref();
      if ('error' in message) pending.reject(new Error(`WS-Security check failed: ${message.error}`));
      else pending.resolve(message.refusal);
    });
    worker.on('error', (error) => this.#stop(error));
    worker.on('exit', (code) => this.#stop(new Error(`the WS-Security thread stopped (exit code ${code})`)));
    // After the listeners: adding a 'message' listener refs the thread's port again.
    worker.unref();
  }

  /** The request's refusal, or undefined when its signature is good. Only the parts the check reads cross to the thread. */
  check(request: SignedParts, certificatePem: string, now: Date): Promise<SignatureRefusal | undefined> {
    if (this.#stopped) return Promise.reject(this.#stopped);
    const { text, signature, bodyId, headerId, timestamp } = request;
    return new Promise((resolve, reject) => {
      const id = this.#next++;
      this.#pending.set(id, { resolve, reject });
      // Held while it has work, so a command waiting for a check is not ended under it.
      if (this.#pending.size === 1) this.worker.ref();
      this.worker.postMessage({ id, request: { text, signature, bodyId, headerId, timestamp }, certificatePem, receivedAt: now.getTime() } satisfies SignatureCheck);
    });
  }

  /** Ends the thread (tests); the checks it held fail, and the next check starts another. */
  async close(): Promise<void> {
    this.#stop(new Error('the WS-Security thread was closed'));
    await this.worker.terminate();
  }

  #stop(error: Error): void {
    if (this.#stopped) return;
    this.#stopped = error;
    this.onStopped();
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }
}
