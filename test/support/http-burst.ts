/**
 * Many requests of one route at once over real HTTP, with the gateway's readiness asked
 * throughout: what the concurrent-writes test needs to show that a burst neither hangs
 * a request nor takes /readyz down (issue 27: one withdrawal request hung the embedded
 * database for good; 30 at once held every PostgreSQL connection and /readyz went 503).
 *
 * A request that gets no answer within `answerWithinMs` is recorded as unanswered
 * (status 0), never awaited for ever; so is one that fails on the wire.
 */
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** One request's answer: status 0 when none came (timed out, connection lost), with why in `text`. */
export interface Answer {
  readonly status: number;
  readonly text: string;
  readonly headers: Headers;
  readonly ms: number;
}

/** A request to make: path (from the base URL) and fetch's options. */
export interface Call {
  readonly path: string;
  readonly init?: RequestInit;
}

export interface BurstOptions {
  /** How long a request may take before it counts as unanswered. Default 30 s. */
  readonly answerWithinMs?: number;
  /** How often /readyz is asked while the burst lasts. Default 100 ms. */
  readonly pollEveryMs?: number;
  /** How long one /readyz may take. Default 2.5 s. */
  readonly readyWithinMs?: number;
  /** Told the burst's figures (slowest answer and poll, event loop) before anything is asserted. */
  readonly report?: (figures: string) => void;
}

export interface Burst {
  readonly answers: readonly Answer[];
  /** The readiness polls made during the burst, each with its status (0: none within the limit) and time. */
  readonly polls: readonly { readonly status: number; readonly ms: number; readonly error?: string }[];
  /**
   * The longest the event loop of this process was blocked during the burst, in ms. A
   * gateway started by the test shares the process: a long block is the gateway's own
   * work on the main thread (and a poll that times out then is late for that reason).
   */
  readonly loopBlockedMs: number;
}

/**
 * Sends every call at once, asks /readyz every `pollEveryMs` from before the first until
 * after the last has answered, and asserts what holds for every route: each call was
 * answered, none with 500 or 503, and every poll answered 200 in time.
 */
export async function burst(base: string, calls: readonly Call[], options: BurstOptions = {}): Promise<Burst> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const poller = pollReadiness(base, options.pollEveryMs ?? 100, options.readyWithinMs ?? 2_500);
  const answers = await Promise.all(calls.map((call) => send(base, call, options.answerWithinMs ?? 30_000)));
  const polls = await poller.stop();
  loop.disable();
  const loopBlockedMs = Math.round(loop.max / 1e6);
  const slowest = (values: readonly { ms: number }[]) => Math.max(0, ...values.map((value) => value.ms));
  options.report?.(`${calls.length} answered within ${slowest(answers)} ms, ${polls.length} polls of /readyz within ${slowest(polls)} ms, event loop blocked up to ${loopBlockedMs} ms`);
  const unanswered = answers.flatMap((answer, index) => (answer.status === 0 ? [`#${index}: no answer after ${answer.ms} ms (${answer.text})`] : []));
  assert.deepEqual(unanswered, [], 'every request is answered');
  const failed = answers.flatMap((answer, index) => (answer.status === 500 || answer.status === 503 ? [`#${index}: ${answer.status} ${answer.text.slice(0, 300)}`] : []));
  assert.deepEqual(failed, [], 'no request is answered 500 or 503');
  const down = polls.filter((poll) => poll.status !== 200).map((poll) => `${poll.status} after ${poll.ms} ms${poll.error ? ` (${poll.error})` : ''}`);
  assert.deepEqual(down, [], `/readyz answers 200 within ${options.readyWithinMs ?? 2_500} ms throughout the burst (${polls.length} polls; event loop blocked up to ${loopBlockedMs} ms)`);
  return { answers, polls, loopBlockedMs };
}

/** One request, its body read as text, given up after `withinMs`. */
export async function send(base: string, call: Call, withinMs = 30_000): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await fetch(`${base}${call.path}`, { redirect: 'manual', ...call.init, signal: AbortSignal.timeout(withinMs) });
    const text = await response.text();
    return { status: response.status, text, headers: response.headers, ms: Math.round(performance.now() - started) };
  } catch (error) {
    return { status: 0, text: String((error as Error).message ?? error), headers: new Headers(), ms: Math.round(performance.now() - started) };
  }
}

/** Asks GET /readyz now and every `everyMs` until stopped, each ask given `withinMs`; stop() waits for the last. */
function pollReadiness(base: string, everyMs: number, withinMs: number) {
  const polls: Promise<Burst['polls'][number]>[] = [];
  const ask = () => {
    polls.push(send(base, { path: '/readyz' }, withinMs).then((answer) => ({
      status: answer.status, ms: answer.ms, ...(answer.status === 200 ? {} : { error: answer.text.slice(0, 200) }),
    })));
  };
  ask();
  const timer = setInterval(ask, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      ask();
      return Promise.all(polls);
    },
  };
}

/**
 * How many answers of each kind: `201`, or `422 WITHDRAWAL_AMOUNT_OUT_OF_BOUNDS` where
 * an error answer names its code (JSON `code`), for one assertion per burst that shows
 * every answer at once.
 */
export function tally(answers: readonly Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const answer of answers) {
    const key = answer.status >= 400 && codeOf(answer) ? `${answer.status} ${codeOf(answer)}` : String(answer.status);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

function codeOf(answer: Answer): string | undefined {
  try {
    const code = (JSON.parse(answer.text) as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/** The answer's JSON body. */
export function json<T>(answer: Answer): T {
  return JSON.parse(answer.text) as T;
}
