/**
 * `node --import tsx bench/log-masking.ts`: what masking costs a log line. Every line
 * the gateway logs passes through `maskLogLine` (src/core/log-masking.ts) as written,
 * and every log call through pino's redaction of the fields named for a person's
 * number, a credential or an account. Measured per line on lines as the gateway
 * writes them (a request's two lines, a worker's, one with a token and an account),
 * against the personal-identity-number masking alone (what the gateway did before
 * tokens and accounts were masked), and per log call with a logger of each kind.
 */
import { pino, type LoggerOptions } from 'pino';
import { gatewayLoggerOptions } from '../src/observability/gateway-logger.ts';
import { maskPersonalIdentityNumbers } from '../src/core/identifiers.ts';
import { maskLogLine } from '../src/core/log-masking.ts';

const ROUNDS = 7;
const LINES_PER_ROUND = 100_000;
const log = (text: string) => process.stdout.write(`${text}\n`);

const TOKEN = 'eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJmaXJtIiwia2luZCI6ImFkdmlzb3ItZmlybSIsImV4cCI6MTc5NTYwNDcwN30.MEUCIQDx3kq0YtYbZ2xK9mQ4pL7sV1nR8cT5wU6eA0fH3jG';
const LINES: Record<string, string> = {
  'incoming request': '{"level":30,"time":1795604407514,"pid":41234,"hostname":"gw-1","role":"api","reqId":"req-1a","req":{"method":"GET","url":"/Product","host":"127.0.0.1:8080","remoteAddress":"127.0.0.1","remotePort":51234},"msg":"incoming request"}\n',
  'request completed': '{"level":30,"time":1795604407519,"pid":41234,"hostname":"gw-1","role":"api","reqId":"req-1a","res":{"statusCode":200},"responseTime":4.81,"msg":"request completed"}\n',
  'worker line': '{"level":30,"time":1795604407600,"pid":41234,"hostname":"gw-1","queue":"apply","jobId":"01JD8Z3Q4X5Y6Z7A8B9C0D1E2F","messageType":"SalaryAdjustment","items":12,"msg":"applied"}\n',
  'withdrawal path': '{"level":30,"time":1795604407514,"pid":41234,"hostname":"gw-1","role":"api","reqId":"req-2b","req":{"method":"GET","url":"/Customer/50001234560/WithdrawalAccount","host":"127.0.0.1:8080","remoteAddress":"127.0.0.1","remotePort":51236},"msg":"incoming request"}\n',
  'token and account': `{"level":30,"time":1795604407514,"pid":41234,"hostname":"gw-1","role":"api","reqId":"req-2b","req":{"method":"GET","url":"/Customer/50001234560/WithdrawalAccount?access_token=${TOKEN}","host":"127.0.0.1:8080","remoteAddress":"127.0.0.1","remotePort":51236},"msg":"incoming request"}\n`,
};

/** CPU nanoseconds per call of `mask` on `line`: the median of the rounds. */
function perLine(mask: (line: string) => string, line: string): number {
  let sink = 0;
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    // CPU time, not the clock: on a shared machine the clock counts other processes' turns too.
    const started = process.cpuUsage();
    for (let i = 0; i < LINES_PER_ROUND; i += 1) sink += mask(line).length;
    const used = process.cpuUsage(started);
    rounds.push(((used.user + used.system) * 1000) / LINES_PER_ROUND);
  }
  if (sink === 0) throw new Error('nothing masked');
  return rounds.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
}

/** Nanoseconds per log call of a request line for `url` with a logger made with `options`, writing nowhere. */
function perLogCall(options: LoggerOptions, url: string): number {
  const logger = pino(options, { write: () => undefined }).child({ role: 'api' });
  const req = { method: 'GET', url, host: '127.0.0.1:8080', remoteAddress: '127.0.0.1', remotePort: 51234 };
  return perLine(() => {
    logger.info({ reqId: 'req-1a', req }, 'incoming request');
    return 'x';
  }, '');
}

/** The gateway's logger options before tokens and accounts were masked. */
const before: LoggerOptions = {
  level: 'info',
  redact: {
    paths: ['pin', 'personalIdentityNumber', 'personal_identity_number'].flatMap((f) => [f, `*.${f}`, `*.*.${f}`]),
    censor: (value: unknown) => (typeof value === 'string' ? maskPersonalIdentityNumbers(value) : '[personal identity number]'),
  },
  hooks: { streamWrite: maskPersonalIdentityNumbers },
};

log(`streamWrite per line, CPU time, median of ${ROUNDS} rounds of ${LINES_PER_ROUND.toLocaleString('en')} (ns)`);
log('line                 numbers only  tokens, accounts, numbers  added');
for (const [name, line] of Object.entries(LINES)) {
  const old = perLine(maskPersonalIdentityNumbers, line);
  const now = perLine(maskLogLine, line);
  log(`${name.padEnd(20)} ${old.toFixed(0).padStart(12)}  ${now.toFixed(0).padStart(25)}  ${(now - old).toFixed(0).padStart(5)}`);
}
log('\nper log call (pino: redaction, serialising, streamWrite), a request line (ns)');
for (const url of ['/Product', '/Customer/50001234560/WithdrawalAccount']) {
  log(`${url.padEnd(40)} ${perLogCall(before, url).toFixed(0)} before, ${perLogCall(gatewayLoggerOptions('info'), url).toFixed(0)} now`);
}
