/**
 * The REST API's per-client limits on a real gateway over real HTTP (fetch against the
 * listening port, so requests really run at once): a client over its requests per
 * second or its requests in flight is answered 429 TOO_MANY_REQUESTS with Retry-After
 * while another client is served, and is served again once it waits. On PostgreSQL a
 * client's requests are held inside the database (a lock on the products table) to show
 * that the limit is what keeps it from taking the pool; on both databases requests are
 * held open by a request body that never ends, and aborted, to show no slot is lost.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startTestGateway, waitFor, type TestGateway } from './support/harness.ts';
import { hashSecret } from '../src/config/secret-hash.ts';
import { parseConfig } from '../src/config/load-config.ts';

/** `hasty` may send 5 a second in bursts of 10; `busy` may have 3 in flight; `firm` has the defaults (50/s, 100, 8). */
async function limitedClients(): Promise<Record<string, unknown>> {
  const secretHash = await hashSecret('client-secret');
  return {
    tokenRequestsPerMinute: 1000,
    clients: [
      { id: 'hasty', kind: 'advisor-firm', organisationNumber: '5567777775', secretHash, limits: { requestsPerSecond: 5, burst: 10 } },
      { id: 'busy', kind: 'advisor-firm', organisationNumber: '5567777775', secretHash, limits: { concurrentRequests: 3 } },
      { id: 'firm', kind: 'advisor-firm', organisationNumber: '5565555553', secretHash },
    ],
  };
}

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly contentType: string | null;
  readonly body: Record<string, unknown> | unknown[] | null;
  readonly ms: number;
}

class RestClient {
  private token = '';

  constructor(private readonly base: string, private readonly id: string) {}

  async signIn(): Promise<void> {
    const response = await fetch(`${this.base}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${this.id}:client-secret`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    assert.equal(response.status, 200, await response.clone().text());
    this.token = ((await response.json()) as { access_token: string }).access_token;
  }

  async get(path: string, signal?: AbortSignal): Promise<Answer> {
    const started = performance.now();
    const response = await fetch(`${this.base}${path}`, { headers: { authorization: `Bearer ${this.token}` }, ...(signal ? { signal } : {}) });
    const text = await response.text();
    return {
      status: response.status, retryAfter: response.headers.get('retry-after'), contentType: response.headers.get('content-type'),
      body: text === '' ? null : (JSON.parse(text) as Record<string, unknown>), ms: performance.now() - started,
    };
  }

  /**
   * A POST whose body is sent up to its first byte and then held: the request is in
   * flight from its headers on, until `abort`.
   */
  holdUpload(path: string): HeldUpload {
    const controller = new AbortController();
    const body = new ReadableStream<Uint8Array>({ start: (stream) => stream.enqueue(new TextEncoder().encode('{')) });
    const upload: { outcome: string | undefined } = { outcome: undefined };
    const settled = fetch(`${this.base}${path}`, {
      method: 'POST', body, signal: controller.signal, duplex: 'half',
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
    } as RequestInit).then(
      async (response) => void (upload.outcome = `answered ${response.status}`),
      (error: unknown) => void (upload.outcome = String((error as { name?: unknown }).name)),
    );
    return { abort: () => controller.abort(), settled, outcome: () => upload.outcome };
  }
}

/** A request held open by its body; `outcome` is undefined while it is. */
interface HeldUpload {
  readonly abort: () => void;
  readonly settled: Promise<void>;
  readonly outcome: () => string | undefined;
}

function assertTooManyRequests(answer: Answer, what: string): number {
  assert.equal(answer.status, 429, what);
  assert.equal(answer.contentType, 'application/problem+json; charset=utf-8', what);
  assert.equal((answer.body as Record<string, unknown>).code, 'TOO_MANY_REQUESTS', what);
  assert.equal((answer.body as Record<string, unknown>).status, 429, what);
  assert.match(String(answer.retryAfter), /^[1-9]\d*$/, `${what}: Retry-After in whole seconds, at least 1`);
  return Number(answer.retryAfter);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function startLimitedGateway(embedded: boolean): Promise<{ gateway: TestGateway; clients: Record<'hasty' | 'busy' | 'firm', RestClient> }> {
  const gateway = await startTestGateway({ roles: ['api'], embedded, settings: { api: await limitedClients() } });
  const address = gateway.http!.server.address();
  assert.ok(address && typeof address === 'object');
  const base = `http://127.0.0.1:${address.port}`;
  const clients = { hasty: new RestClient(base, 'hasty'), busy: new RestClient(base, 'busy'), firm: new RestClient(base, 'firm') };
  for (const client of Object.values(clients)) await client.signIn();
  return { gateway, clients };
}

/** What both databases must show: the rate limit, and requests held open and aborted. */
function sharedScenarios(setup: () => { clients: Record<'hasty' | 'busy' | 'firm', RestClient> }): void {
  test('a client over its requests per second is answered 429 with Retry-After while another client is served, and is served again after waiting', async () => {
    const { hasty, firm } = setup().clients;
    const started = performance.now();
    const hastyAnswers: Answer[] = [];
    const firmAnswers: Answer[] = [];
    await Promise.all([
      (async () => {
        // Two at a time (below any concurrency limit), 24 in all: well past the burst of 10.
        for (let i = 0; i < 12; i += 1) hastyAnswers.push(...(await Promise.all([hasty.get('/Product'), hasty.get('/Product')])));
      })(),
      (async () => {
        for (let i = 0; i < 24; i += 1) firmAnswers.push(await firm.get('/Product'));
      })(),
    ]);
    const seconds = (performance.now() - started) / 1000;

    assert.deepEqual(firmAnswers.map((answer) => answer.status), firmAnswers.map(() => 200), 'the other client: every request answered');
    assert.deepEqual(hastyAnswers.slice(0, 10).map((answer) => answer.status), Array(10).fill(200), 'the burst is served');
    const served = hastyAnswers.filter((answer) => answer.status === 200).length;
    const refused = hastyAnswers.filter((answer) => answer.status !== 200);
    assert.ok(served <= 10 + Math.ceil(seconds * 5), `${served} served in ${seconds.toFixed(2)} s: at most the burst and 5 a second`);
    assert.ok(refused.length >= 24 - 10 - Math.ceil(seconds * 5) && refused.length > 0, `${refused.length} refused`);
    const waits = refused.map((answer, index) => assertTooManyRequests(answer, `refused request ${index}`));
    assert.match(String((refused[0]!.body as Record<string, unknown>).detail), /may make 5 requests a second \(bursts of 10\); retry after 1 s/);
    assert.deepEqual([...new Set(waits)], [1], 'at 5 a second a token is back within a second');

    await sleep(Math.max(...waits) * 1000);
    const again = await hasty.get('/Product');
    assert.equal(again.status, 200, 'served again after Retry-After');
  });

  test('a client with more requests held open than its concurrent limit gets 429 at once for the excess; another client is served; aborted requests give their slots back', async () => {
    const { busy, firm } = setup().clients;
    // A request body that never ends holds each request in flight from its headers on.
    const held = [busy.holdUpload('/InsuranceApplication/validation'), busy.holdUpload('/InsuranceApplication/validation'), busy.holdUpload('/InsuranceApplication/validation')];
    try {
      // Nothing answers a held upload, so the client cannot see it admitted: it is given
      // time to arrive (two seconds: on two cores shared with other work the server may
      // take over a second to read a request's headers, and a fourth request admitted
      // before the third upload would leave that upload refused), and is checked to be
      // held still (not refused) after the fourth.
      await sleep(2_000);
      const excess = await busy.get('/Product');
      assert.deepEqual(held.map((upload) => upload.outcome()), [undefined, undefined, undefined], 'the three uploads are held open');
      assertTooManyRequests(excess, 'the fourth request');
      assert.equal(excess.retryAfter, '1');
      assert.match(String((excess.body as Record<string, unknown>).detail), /may have 3 requests in flight at once/);
      for (const path of ['/Product', '/Advisor/ADV-001', '/Product/KF-DEPA/Funds']) {
        const answer = await busy.get(path);
        assertTooManyRequests(answer, `${path} while 3 are held`);
        assert.ok(answer.ms < 1_000, `${path} refused at once (${answer.ms.toFixed(0)} ms)`);
      }
      const others = await Promise.all(Array.from({ length: 8 }, () => firm.get('/Product')));
      assert.deepEqual(others.map((answer) => answer.status), Array(8).fill(200), 'the other client is served meanwhile');
    } finally {
      for (const upload of held) upload.abort();
      await Promise.all(held.map((upload) => upload.settled));
    }
    assert.deepEqual(held.map((upload) => upload.outcome()), ['AbortError', 'AbortError', 'AbortError'], 'held until aborted');
    // The server sees the connections close and gives the slots back: three at once again.
    await waitFor(async () => (await busy.get('/Product')).status === 200, 'busy served again', 5_000);
    const three = await Promise.all([busy.get('/Product'), busy.get('/Product'), busy.get('/Product')]);
    assert.deepEqual(three.map((answer) => answer.status), [200, 200, 200], 'all three slots are back');
  });
}

describe('per-client limits of the REST API on PostgreSQL', () => {
  let gateway: TestGateway;
  let clients: Record<'hasty' | 'busy' | 'firm', RestClient>;

  beforeAll(async () => {
    ({ gateway, clients } = await startLimitedGateway(false));
  });
  afterAll(() => gateway?.destroy());

  sharedScenarios(() => ({ clients }));

  test('requests held inside the database hold at most the client\'s limit of pool connections; an aborted one keeps its slot until its query ends, then gives it back', async () => {
    const { busy, firm } = clients;
    const database = gateway.database!.name;
    const lock = new pg.Client({ connectionString: gateway.database!.url });
    await lock.connect();
    const waitingOnProducts = async () => Number((await lock.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND query LIKE '%FROM products%'", [database],
    )).rows[0]!.n);
    try {
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE products IN ACCESS EXCLUSIVE MODE');
      const controllers = [new AbortController(), new AbortController(), new AbortController()];
      const held = controllers.map((controller) => busy.get('/Product', controller.signal).catch((error: unknown) => error));
      await waitFor(async () => (await waitingOnProducts()) === 3, 'three of busy\'s queries waiting on the lock, each on a pool connection');

      const excess = await Promise.all(Array.from({ length: 5 }, () => busy.get('/Product')));
      for (const [index, answer] of excess.entries()) assertTooManyRequests(answer, `excess request ${index}`);
      assert.equal(await waitingOnProducts(), 3, 'the excess never reached the database');
      // The other client, at its own limit of 8 at once, finds pool connections free.
      const others = await Promise.all(Array.from({ length: 8 }, () => firm.get('/Advisor/ADV-001')));
      assert.deepEqual(others.map((answer) => answer.status), Array(8).fill(200), 'the other client is served');

      // Giving up on a request does not end its query: its slot stays taken, so
      // aborting and sending again cannot get past the limit.
      controllers[0]!.abort();
      assert.equal((await held[0] as { name?: string }).name, 'AbortError', 'the aborted request ends for the client');
      await sleep(200);
      // Admitted, it would wait on the lock too: the time limit turns that into a failure.
      assertTooManyRequests(await busy.get('/Product', AbortSignal.timeout(2_000)), 'a new request while the aborted one\'s query still waits');
      assert.equal(await waitingOnProducts(), 3);

      await lock.query('COMMIT');
      const answers = (await Promise.all(held.slice(1))) as Answer[];
      assert.deepEqual(answers.map((answer) => answer.status), [200, 200], 'the held requests are answered once the lock is gone');
      // Every slot is back, the aborted request's too: three at once are all admitted and all wait in the database.
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE products IN ACCESS EXCLUSIVE MODE');
      const again = [busy.get('/Product'), busy.get('/Product'), busy.get('/Product')];
      await waitFor(async () => (await waitingOnProducts()) === 3, 'three admitted again');
      await lock.query('COMMIT');
      assert.deepEqual((await Promise.all(again)).map((answer) => answer.status), [200, 200, 200]);
    } finally {
      await lock.query('ROLLBACK').catch(() => undefined);
      await lock.end();
    }
  });

  test('a concurrent limit not below databasePoolSize is refused at start, naming the setting', () => {
    const client = (id: string, limits: Record<string, unknown>) => ({ id, kind: 'advisor-firm', organisationNumber: '5565555553', secretHash: 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', limits });
    assert.throws(() => parseConfig({ databasePoolSize: 10, api: { limits: { concurrentRequests: 10 }, clients: [client('a', { concurrentRequests: 12 }), client('b', { concurrentRequests: 9 })] } }), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'CONFIG_INVALID');
      assert.match(error.message, /api\.limits\.concurrentRequests: 10 is not below databasePoolSize \(10\)/);
      assert.match(error.message, /api\.clients\.0\.limits\.concurrentRequests: 12 is not below databasePoolSize \(10\)/);
      assert.doesNotMatch(error.message, /api\.clients\.1/);
      return true;
    });
    assert.throws(() => parseConfig({ api: { limits: { concurrentRequests: 20 } } }), /api\.limits\.concurrentRequests: 20 is not below databasePoolSize \(20\)/);
    const defaults = parseConfig({});
    assert.deepEqual([defaults.databasePoolSize, defaults.api.limits], [20, { requestsPerSecond: 50, burst: 100, concurrentRequests: 8 }]);
    assert.throws(() => parseConfig({ api: { limits: { burst: 0 } } }), /api\.limits\.burst/);
    assert.throws(() => parseConfig({ api: { limits: { perMinute: 5 } } }), /api\.limits/);
  });
});

describe('per-client limits of the REST API on the embedded database', () => {
  let gateway: TestGateway;
  let clients: Record<'hasty' | 'busy' | 'firm', RestClient>;

  beforeAll(async () => {
    ({ gateway, clients } = await startLimitedGateway(true));
  });
  afterAll(() => gateway?.destroy());

  sharedScenarios(() => ({ clients }));
});
