import { parentPort } from 'node:worker_threads';
import { checkRequestSignature, type SignatureRefusal, type SignedParts } from './ws-security.ts';

/**
 * The WS-Security thread's own code (see ws-security-thread.ts): checks one request's
 * signature at a time, in the order they come, and answers each with its refusal (none
 * when it verifies) or the error that stopped the check.
 */
export interface SignatureCheck {
  readonly id: number;
  readonly request: SignedParts;
  readonly certificatePem: string;
  /** The time the request came, in milliseconds: the timestamp's freshness is judged against it. */
  readonly receivedAt: number;
}

export type SignatureAnswer = { readonly id: number; readonly refusal: SignatureRefusal | undefined } | { readonly id: number; readonly error: string };

/** What the thread posts: 'ready' once, then an answer to each check. */
export type SignatureThreadMessage = 'ready' | SignatureAnswer;

const port = parentPort;
if (!port) throw new Error('ws-security-worker.ts runs as a worker thread only');

port.on('message', (check: SignatureCheck) => {
  let answer: SignatureAnswer;
  try {
    answer = { id: check.id, refusal: checkRequestSignature(check.request, check.certificatePem, new Date(check.receivedAt)) };
  } catch (error) {
    answer = { id: check.id, error: (error as Error).message ?? String(error) };
  }
  port.postMessage(answer);
});
// The first message: the thread is ready for checks.
port.postMessage('ready');
