/**
 * `npm run bench -- ssek-signatures`: what checking an SSEK request's WS-Security
 * signature costs, and how much of it the gateway's thread pays. Twenty signed
 * ChangeFee envelopes (3 KB each, signed as test/support/ssek-envelopes.ts signs them:
 * RSA-SHA256, exclusive C14N, references to the body, the SSEK header and the
 * timestamp) are checked
 *  - one at a time on this thread, for the CPU of each step: parsing the envelope
 *    (parseSsekRequest), xml-crypto's check as it searches references by default (Id,
 *    ID and id: what the endpoint did before) and the check as the endpoint makes it
 *    (checkRequestSignature: Id only);
 *  - all twenty at once, as a burst of requests reaches the endpoint: parsed here and
 *    checked here (as before), and parsed here and checked on the WS-Security thread
 *    (verifyRequestSignatureOffThread, as now). For each: the longest the event loop was
 *    blocked, and this thread's busy time per envelope (event-loop utilisation).
 * CPU per step is the median of rounds of process.cpuUsage (this thread only, as
 * nothing else runs); busy time is wall time, so on a loaded machine it counts the
 * turns other processes took too. The thread's start is timed apart.
 */
import { readFile } from 'node:fs/promises';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { SignedXml } from 'xml-crypto';
import { parseSsekRequest } from '../src/channels/ssek/ssek-envelope.ts';
import { checkRequestSignature, verifyRequestSignature } from '../src/channels/ssek/ws-security.ts';
import { processSignatureThread, verifyRequestSignatureOffThread } from '../src/channels/ssek/ws-security-thread.ts';
import { makeTestCertificates } from '../test/support/certificates.ts';
import { envelope, feeDocument, signEnvelope } from '../test/support/ssek-envelopes.ts';

const AT_ONCE = 20;
const ROUNDS = 15;
const PER_ROUND = 20;
const MAX_DEPTH = 64;
const log = (text: string) => process.stdout.write(`${text}\n`);

const certificates = await makeTestCertificates();
try {
  const signing = await certificates.signing('bench-signing');
  const [key, cert] = await Promise.all([readFile(signing.key, 'utf8'), readFile(signing.cert, 'utf8')]);
  const envelopes = Array.from({ length: AT_ONCE }, (_, i) => new TextEncoder().encode(signEnvelope(envelope(feeDocument(`BENCH-SIG-${i}`, String(300 + i))), { key })));
  const request = parseSsekRequest(envelopes[0]!, MAX_DEPTH);
  if (checkRequestSignature(request, cert, new Date())) throw new Error('the bench envelope does not verify');

  log(`one envelope (${envelopes[0]!.byteLength} bytes), CPU per step, median of ${ROUNDS} rounds of ${PER_ROUND}:`);
  log(`  parse the envelope                          ${cpuMs(() => parseSsekRequest(envelopes[0]!, MAX_DEPTH)).toFixed(2)} ms`);
  log(`  xml-crypto's check, references by Id/ID/id  ${cpuMs(() => defaultCheck(request.signature!, request.text, cert)).toFixed(2)} ms (the endpoint before)`);
  log(`  the endpoint's check, references by Id      ${cpuMs(() => checkRequestSignature(request, cert, new Date())).toFixed(2)} ms`);

  const started = performance.now();
  const thread = await processSignatureThread();
  if (!thread) throw new Error('the WS-Security thread did not start');
  log(`\nthe WS-Security thread started in ${Math.round(performance.now() - started)} ms (from the sources, through tsx)`);

  log(`\n${AT_ONCE} envelopes at once, parsed on this thread:`);
  for (let round = 0; round < 3; round += 1) {
    const inline = await burst(async (bytes) => verifyRequestSignature(parseSsekRequest(bytes, MAX_DEPTH), cert, new Date()), envelopes);
    const offThread = await burst((bytes) => verifyRequestSignatureOffThread(parseSsekRequest(bytes, MAX_DEPTH), cert, new Date()), envelopes);
    for (const [how, figures] of [['on this thread:   ', inline], ['on its own thread:', offThread]] as const) {
      log(`  checked ${how} the turn took ${figures.turnMs.toFixed(0).padStart(4)} ms, event loop blocked up to ${figures.blockedMs.toFixed(0).padStart(4)} ms, ` +
        `this thread busy ${figures.busyPerEnvelopeMs.toFixed(2)} ms per envelope, all answered in ${figures.elapsedMs.toFixed(0)} ms`);
    }
  }
} finally {
  await certificates.remove();
}

/** xml-crypto's check with its default references (Id, ID and id), as the endpoint made it before. */
function defaultCheck(signature: string, text: string, cert: string): void {
  const verifier = new SignedXml({ publicCert: cert });
  verifier.loadSignature(signature);
  if (!verifier.checkSignature(text)) throw new Error('does not verify');
}

/** CPU milliseconds of one call: the median of the rounds. */
function cpuMs(work: () => unknown): number {
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const before = process.cpuUsage();
    for (let i = 0; i < PER_ROUND; i += 1) work();
    const used = process.cpuUsage(before);
    rounds.push((used.user + used.system) / 1000 / PER_ROUND);
  }
  return rounds.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
}

/**
 * Starts every check in one turn, as requests that arrived together are: how long that
 * turn took, the loop's longest block (a timer's lateness), this thread's busy time per
 * envelope, and how long until every check had its answer.
 */
async function burst(check: (bytes: Uint8Array) => Promise<void>, all: readonly Uint8Array[]) {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  await pause(20);
  loop.enable();
  const utilisation = performance.eventLoopUtilization();
  const started = performance.now();
  let turnMs = 0;
  await new Promise<void>((resolve, reject) => {
    setTimeout(() => {
      const turn = performance.now();
      void Promise.all(all.map((bytes) => check(bytes))).then(() => resolve(), reject);
      turnMs = performance.now() - turn;
    }, 5);
  });
  const elapsedMs = performance.now() - started;
  const busy = performance.eventLoopUtilization(utilisation);
  // The loop's sampler notes a block when it next runs.
  await pause(20);
  loop.disable();
  return { turnMs, blockedMs: loop.max / 1e6, busyPerEnvelopeMs: busy.active / all.length, elapsedMs };
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
