import { describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { ClientRequestLimiter, type Admission, type ClientLimits } from './client-request-limiter.ts';

const LIMITS: Record<string, ClientLimits> = {
  a: { requestsPerSecond: 5, burst: 10, concurrentRequests: 3 },
  b: { requestsPerSecond: 50, burst: 100, concurrentRequests: 8 },
  slow: { requestsPerSecond: 0.25, burst: 1, concurrentRequests: 1 },
};

function limiterAt(start = 1_000): { limiter: ClientRequestLimiter; advance: (ms: number) => void } {
  let now = start;
  const limiter = new ClientRequestLimiter((id) => LIMITS[id]!, () => now);
  return { limiter, advance: (ms) => void (now += ms) };
}

/** Admits and releases at once, as a request answered before the next arrives. */
function admitAndRelease(limiter: ClientRequestLimiter, id: string): Admission {
  const admission = limiter.admit(id);
  if (admission.admitted) admission.release();
  return admission;
}

describe('ClientRequestLimiter: rate', () => {
  test('a fresh client may send its burst at once; the next is refused with the seconds until a token is back', () => {
    const { limiter } = limiterAt();
    for (let i = 0; i < 10; i += 1) assert.equal(admitAndRelease(limiter, 'a').admitted, true, `request ${i + 1}`);
    assert.deepEqual(admitAndRelease(limiter, 'a'), { admitted: false, limit: 'rate', retryAfterSeconds: 1 });
  });

  test('tokens come back at requestsPerSecond, never above the burst', () => {
    const { limiter, advance } = limiterAt();
    for (let i = 0; i < 10; i += 1) admitAndRelease(limiter, 'a');
    advance(199);
    assert.equal(admitAndRelease(limiter, 'a').admitted, false, '0.995 of a token after 199 ms at 5/s');
    advance(1);
    assert.equal(admitAndRelease(limiter, 'a').admitted, true, 'one token after 200 ms');
    assert.equal(admitAndRelease(limiter, 'a').admitted, false);

    advance(60_000);
    let admitted = 0;
    while (admitAndRelease(limiter, 'a').admitted) admitted += 1;
    assert.equal(admitted, 10, 'a minute idle refills the burst, not 300 tokens');
  });

  test('Retry-After is whole seconds, rounded up, at least 1', () => {
    const { limiter, advance } = limiterAt();
    assert.equal(admitAndRelease(limiter, 'slow').admitted, true);
    assert.deepEqual(admitAndRelease(limiter, 'slow'), { admitted: false, limit: 'rate', retryAfterSeconds: 4 }, '1 token at 0.25/s');
    advance(2_500);
    assert.deepEqual(admitAndRelease(limiter, 'slow'), { admitted: false, limit: 'rate', retryAfterSeconds: 2 }, '0.375 left to wait 1.5 s: 2');
    advance(1_499);
    assert.deepEqual(admitAndRelease(limiter, 'slow'), { admitted: false, limit: 'rate', retryAfterSeconds: 1 }, 'a millisecond left: 1, never 0');
    advance(1);
    assert.equal(admitAndRelease(limiter, 'slow').admitted, true);
  });

  test('a refused request takes no token: hammering does not push the next admission away', () => {
    const { limiter, advance } = limiterAt();
    for (let i = 0; i < 10; i += 1) admitAndRelease(limiter, 'a');
    for (let i = 0; i < 1000; i += 1) assert.equal(admitAndRelease(limiter, 'a').admitted, false);
    advance(200);
    assert.equal(admitAndRelease(limiter, 'a').admitted, true);
  });

  test('each client has its own bucket', () => {
    const { limiter } = limiterAt();
    for (let i = 0; i < 10; i += 1) admitAndRelease(limiter, 'a');
    assert.equal(admitAndRelease(limiter, 'a').admitted, false);
    for (let i = 0; i < 100; i += 1) assert.equal(admitAndRelease(limiter, 'b').admitted, true, `b's request ${i + 1}`);
  });

  test('a clock that steps back refills nothing and breaks nothing', () => {
    let now = 10_000;
    const limiter = new ClientRequestLimiter((id) => LIMITS[id]!, () => now);
    for (let i = 0; i < 10; i += 1) admitAndRelease(limiter, 'a');
    now = 5_000;
    assert.equal(admitAndRelease(limiter, 'a').admitted, false);
    now = 5_200;
    assert.equal(admitAndRelease(limiter, 'a').admitted, true);
  });
});

describe('ClientRequestLimiter: requests in flight', () => {
  test('past concurrentRequests in flight the next is refused until one is released', () => {
    const { limiter } = limiterAt();
    const held = [limiter.admit('a'), limiter.admit('a'), limiter.admit('a')];
    assert.ok(held.every((admission) => admission.admitted));
    assert.equal(limiter.inFlight('a'), 3);
    assert.deepEqual(limiter.admit('a'), { admitted: false, limit: 'concurrency', retryAfterSeconds: 1 });
    assert.equal(limiter.admit('b').admitted, true, 'another client is not held up');

    const first = held[0]!;
    if (first.admitted) first.release();
    assert.equal(limiter.inFlight('a'), 2);
    assert.equal(limiter.admit('a').admitted, true);
  });

  test('release is counted once however often it is called', () => {
    const { limiter } = limiterAt();
    const one = limiter.admit('a');
    const two = limiter.admit('a');
    assert.ok(one.admitted && two.admitted);
    one.release();
    one.release();
    one.release();
    assert.equal(limiter.inFlight('a'), 1, 'the second request still counts');
    two.release();
    assert.equal(limiter.inFlight('a'), 0);
  });

  test('a request refused for concurrency takes no token', () => {
    const { limiter } = limiterAt();
    const held = [limiter.admit('a'), limiter.admit('a'), limiter.admit('a')];
    for (let i = 0; i < 50; i += 1) assert.equal(limiter.admit('a').admitted, false);
    for (const admission of held) if (admission.admitted) admission.release();
    let admitted = 0;
    while (admitAndRelease(limiter, 'a').admitted) admitted += 1;
    assert.equal(admitted, 7, 'the burst of 10 less the 3 held ones');
  });

  test('concurrency is checked before the rate: a client at both limits is told about the slots', () => {
    const { limiter } = limiterAt();
    const held = [limiter.admit('a'), limiter.admit('a'), limiter.admit('a')];
    assert.ok(held.every((admission) => admission.admitted));
    for (let i = 0; i < 7; i += 1) admitAndRelease(limiter, 'a');
    const refused = limiter.admit('a');
    assert.equal(refused.admitted, false);
    assert.equal(!refused.admitted && refused.limit, 'concurrency');
  });
});
