import { test, beforeAll, afterAll, expect } from '@jest/globals';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFile, mkdir, readdir, readFile, rename, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { RemoteSftpPoller } from '../src/channels/remote-sftp/remote-sftp.poller.ts';
import { SftpSession, type SftpSessionLog } from '../src/channels/remote-sftp/sftp-session.ts';
import { remoteFilesOf } from '../src/ledger/messages/remote-files.repository.ts';
import { LEASE_LOCKS } from '../src/ledger/postgres-leases.ts';
import { isGatewayError } from '../src/core/gateway-error.ts';
import { changeFee, PERSONS } from './support/documents.ts';
import { createDemoLedgerTemplate, createTestDatabase, startTestGateway, testSettings, waitFor, type TestDatabase, type TestGateway } from './support/harness.ts';
import { startSshd, type SshdServer } from './support/sshd.ts';

/**
 * The remote SFTP channel against OpenSSH's sshd (internal-sftp) on loopback: the
 * counterparty demo-employer hosts its own server; the gateway polls its outbox, pushes
 * answers to its inbox and archives what it took. The counterparty's own side writes
 * into the served folders directly or uploads with the `sftp` command-line client.
 */

const run = promisify(execFile);
let sshd: SshdServer;
let template: TestDatabase;
const gateways: TestGateway[] = [];
const databases: TestDatabase[] = [];

beforeAll(async () => {
  sshd = await startSshd();
  template = await createDemoLedgerTemplate();
});
afterAll(async () => {
  for (const gateway of gateways.splice(0)) await gateway.destroy().catch(() => undefined);
  await sshd?.destroy();
  for (const database of databases.splice(0)) await database.drop();
  await template?.drop();
});

interface Remote {
  readonly outbox: string;
  readonly inbox: string;
  readonly archive: string;
}

/** Fresh remote folders for one test (the SFTP user sees the local paths). */
async function remoteFolders(name: string, { createArchive = true } = {}): Promise<Remote> {
  const base = join(sshd.root, name);
  const remote = { outbox: join(base, 'outbox'), inbox: join(base, 'inbox'), archive: join(base, 'archive') };
  await mkdir(remote.outbox, { recursive: true });
  await mkdir(remote.inbox, { recursive: true });
  if (createArchive) await mkdir(remote.archive, { recursive: true });
  return remote;
}

interface SftpOverrides {
  hostKeySha256?: string;
  stableMs?: number;
  workers?: Record<string, unknown>;
  /** Without it, fetched files are deleted. Default true. */
  archive?: boolean;
  limits?: Record<string, unknown>;
  /** demo-custodian's own server too. */
  custodian?: Remote;
}

/** demo-employer (and demo-custodian) with its own SFTP server; the other counterparties as the harness has them. */
function sftpSettings(remote: Remote, overrides: SftpOverrides = {}): Record<string, unknown> {
  const base = testSettings('unused');
  const servers: Record<string, Remote | undefined> = { 'demo-employer': remote, 'demo-custodian': overrides.custodian };
  const counterparties = (base.counterparties as Record<string, unknown>[]).map((c) => {
    const served = servers[c.id as string];
    return served === undefined ? c : {
      ...c,
      sftp: {
        host: sshd.host, port: sshd.port, username: sshd.username, privateKeyPath: sshd.clientKeyPath,
        hostKeySha256: overrides.hostKeySha256 ?? sshd.hostKeySha256,
        outboxPath: served.outbox, inboxPath: served.inbox, ...(overrides.archive === false ? {} : { archivePath: served.archive }),
        pollIntervalMs: 100, stableMs: overrides.stableMs ?? 300, timeoutMs: 5000,
      },
    };
  });
  return {
    counterparties,
    workers: { backoffMs: 200, attempts: 12, reconcileEveryMs: 500, reconcileAfterMs: 2000, ...overrides.workers },
    ...(overrides.limits ? { limits: overrides.limits } : {}),
  };
}

/** A gateway on a copy of the demo ledger (or on `database`, which outlives it). */
async function startGateway(settings: Record<string, unknown>, database?: TestDatabase): Promise<TestGateway> {
  if (!database) databases.push((database = await createTestDatabase(template.name)));
  const gateway = await startTestGateway({ settings, database });
  gateways.push(gateway);
  return gateway;
}

async function stopGateway(gateway: TestGateway): Promise<void> {
  gateways.splice(gateways.indexOf(gateway), 1);
  await gateway.destroy();
}

const query = async <T>(gateway: TestGateway, sql: string, params: unknown[] = []) => (await gateway.deps.db.query<T>(sql, params)).rows;

function feeDocument(name: string, value: string, date = '2026-12-01'): string {
  return changeFee({ messageId: name }, [{ pin: PERSONS.cecilia, insurance: 'INS-100003', date, type: 'FixedCharge', value }]);
}

/** Messages of demo-employer by external id, oldest first. */
function messagesNamed(gateway: TestGateway, names: readonly string[]) {
  return query<{ id: string; external_id: string; status: string; channel: string; duplicate_of: string | null }>(
    gateway,
    `SELECT id, external_id, status, channel, duplicate_of FROM messages WHERE counterparty_id = 'demo-employer' AND external_id = ANY($1) ORDER BY seq`,
    [names],
  );
}

test('a document fetched from the remote outbox is applied, answered in the remote inbox and archived', async () => {
  const remote = await remoteFolders('applied');
  const gateway = await startGateway(sftpSettings(remote));
  // The counterparty uploads the way the docs show: an sftp batch, temporary name then rename.
  const local = join(gateway.dataDir, 'fees-sftp-1.xml');
  await writeFile(local, changeFee({ messageId: 'FEES-SFTP-1' }, [
    { pin: PERSONS.anna, insurance: 'INS-100001', date: '2026-12-01', type: 'CapitalCharge', value: '0.25' },
  ]));
  await sftpBatch([`put ${local} ${remote.outbox}/fees-sftp-1.xml.part`, `rename ${remote.outbox}/fees-sftp-1.xml.part ${remote.outbox}/fees-sftp-1.xml`]);

  const [message] = await waitFor(async () => {
    const rows = await messagesNamed(gateway, ['fees-sftp-1.xml']);
    return rows[0]?.status === 'applied' && rows;
  }, 'the fetched document to be applied');
  assert.equal(message!.channel, 'sftp');
  const fees = await query<{ value: string }>(gateway, `SELECT value::text FROM insurance_fees WHERE message_id = $1`, [message!.id]);
  assert.deepEqual(fees, [{ value: '0.2500' }]);

  const responseName = `fees-sftp-1.${message!.id}.ChangeFeeResponse.xml`;
  await waitFor(async () => (await readdir(remote.inbox)).includes(responseName), 'the response in the remote inbox');
  expect(await readdir(remote.inbox)).toEqual([responseName]);
  const response = await readFile(join(remote.inbox, responseName), 'utf8');
  assert.match(response, /<InResponseTo>FEES-SFTP-1<\/InResponseTo>/);
  assert.match(response, /<Status>Accepted<\/Status>/);
  // The counterparty fetches its answer with the sftp client.
  const fetched = join(gateway.dataDir, 'answer.xml');
  await sftpBatch([`get ${remote.inbox}/${responseName} ${fetched}`]);
  assert.equal(await readFile(fetched, 'utf8'), response);

  await waitFor(async () => (await readdir(remote.outbox)).length === 0, 'the remote outbox to be emptied');
  // The poller records a removal just after the move on the server.
  await waitFor(async () => (await query(gateway, `SELECT 1 FROM remote_files WHERE removed_at IS NULL`)).length === 0, 'the removal recorded');
  expect(await readdir(remote.archive)).toEqual([`${message!.id}-fees-sftp-1.xml`]);
  const recorded = await query<{ message_id: string; removed: boolean }>(gateway,
    `SELECT message_id, removed_at IS NOT NULL AS removed FROM remote_files WHERE counterparty_id = 'demo-employer'`);
  assert.deepEqual(recorded, [{ message_id: message!.id, removed: true }]);
  const deliveries = await query<{ channel: string; outcome: string }>(gateway, `SELECT channel, outcome FROM deliveries WHERE message_id = $1`, [message!.id]);
  assert.deepEqual(deliveries, [{ channel: 'sftp', outcome: 'delivered' }]);
  await stopGateway(gateway);
});

test('a file under a temporary name, or still growing, is not taken until it is complete', async () => {
  const remote = await remoteFolders('incomplete');
  const gateway = await startGateway(sftpSettings(remote, { stableMs: 1000 }));
  const late = feeDocument('late.xml', '301');
  const growing = feeDocument('growing.xml', '302', '2026-12-02');
  await writeFile(join(remote.outbox, 'late.xml.filepart'), late);
  // The counterparty's system writes growing.xml in pieces, 200 ms apart, for about 2 s.
  const pieces = 10;
  const step = Math.ceil(growing.length / pieces);
  await writeFile(join(remote.outbox, 'growing.xml'), growing.slice(0, step));
  for (let index = 1; index < pieces; index += 1) {
    await sleep(200);
    assert.deepEqual(await messagesNamed(gateway, ['growing.xml', 'late.xml', 'late.xml.filepart']), [], `nothing taken after ${index} pieces`);
    await appendFile(join(remote.outbox, 'growing.xml'), growing.slice(index * step, (index + 1) * step));
  }
  assert.deepEqual(await messagesNamed(gateway, ['growing.xml', 'late.xml', 'late.xml.filepart']), []);
  await rename(join(remote.outbox, 'late.xml.filepart'), join(remote.outbox, 'late.xml'));

  const rows = await waitFor(async () => {
    const found = await messagesNamed(gateway, ['growing.xml', 'late.xml']);
    return found.length === 2 && found.every((m) => m.status === 'applied') && found;
  }, 'both documents to be applied');
  const raw = await query<{ external_id: string; raw: Uint8Array }>(gateway,
    `SELECT external_id, raw FROM messages WHERE id = ANY($1) ORDER BY external_id`, [rows.map((m) => m.id)]);
  assert.deepEqual(raw.map((m) => [m.external_id, Buffer.from(m.raw).toString('utf8')]), [['growing.xml', growing], ['late.xml', late]]);
  await stopGateway(gateway);
});

test('the server going away mid-run loses nothing and duplicates nothing once it returns', async () => {
  const remote = await remoteFolders('outage');
  const gateway = await startGateway(sftpSettings(remote, { stableMs: 200 }));
  const names = Array.from({ length: 20 }, (_, index) => `outage-${index + 1}.xml`);
  for (const [index, name] of names.entries()) {
    await writeFile(join(remote.outbox, name), feeDocument(name, String(310 + index), `2026-12-${String(index + 1).padStart(2, '0')}`));
  }
  await waitFor(async () => (await messagesNamed(gateway, names)).length > 0, 'the first document to be fetched', 30_000);
  await sshd.kill();
  assert.ok((await messagesNamed(gateway, names)).length < names.length, 'the server went away with files still to fetch');
  await sleep(1500);
  await sshd.start();

  // Answered means uploaded and recorded as delivered: an upload cut off by the outage
  // may already be in place remotely while its delivery is still to be retried.
  const delivered = async (ids: readonly string[]) =>
    (await query<{ n: string }>(gateway, `SELECT count(*)::text AS n FROM responses WHERE message_id = ANY($1) AND delivered_at IS NOT NULL`, [ids]))[0]?.n;
  await waitFor(async () => {
    const rows = await messagesNamed(gateway, names);
    const inbox = (await readdir(remote.inbox)).filter((file) => file.endsWith('.ChangeFeeResponse.xml'));
    return rows.length === names.length && rows.every((m) => m.status === 'applied') && inbox.length === names.length &&
      (await delivered(rows.map((m) => m.id))) === String(names.length);
  }, 'every document applied and answered', 60_000);
  const rows = await messagesNamed(gateway, names);
  assert.deepEqual(rows.map((m) => m.external_id).sort(), [...names].sort(), 'one message per file, none twice');
  assert.ok(rows.every((m) => m.duplicate_of === null));
  const deliveries = await query<{ n: string }>(gateway, `SELECT count(DISTINCT message_id)::text AS n FROM deliveries WHERE message_id = ANY($1) AND outcome = 'delivered'`, [rows.map((m) => m.id)]);
  assert.deepEqual(deliveries, [{ n: String(names.length) }], 'each response recorded as delivered');
  const fees = await query<{ n: string }>(gateway, `SELECT count(*)::text AS n FROM insurance_fees WHERE message_id = ANY($1)`, [rows.map((m) => m.id)]);
  assert.deepEqual(fees, [{ n: String(names.length) }], 'each document applied exactly once');
  expect((await readdir(remote.inbox)).filter((file) => !file.endsWith('.ChangeFeeResponse.xml'))).toEqual([]);
  await waitFor(async () => (await readdir(remote.outbox)).length === 0, 'the remote outbox to be emptied');
  assert.equal((await readdir(remote.archive)).length, names.length);
  await stopGateway(gateway);
});

test('a restart after intake but before the remote removal does not create a second message', async () => {
  const remote = await remoteFolders('restart', { createArchive: false }); // archiving fails until the folder exists
  const database = await createTestDatabase(template.name);
  databases.push(database);
  const first = await startGateway(sftpSettings(remote), database);
  await writeFile(join(remote.outbox, 'restart-1.xml'), feeDocument('restart-1.xml', '330'));
  await waitFor(async () => (await messagesNamed(first, ['restart-1.xml']))[0]?.status === 'applied', 'restart-1.xml applied');
  await waitFor(async () => (await query(first, `SELECT 1 FROM remote_files WHERE remote_path LIKE '%/restart-1.xml' AND removed_at IS NULL`)).length === 1,
    'the fetch recorded');

  // The other window: intake committed, then the gateway stopped before recording the fetch.
  const windowDocument = feeDocument('restart-2.xml', '331', '2026-12-03');
  const staged = join(first.dataDir, 'restart-2.xml');
  await writeFile(staged, windowDocument);
  const mtime = new Date('2026-11-20T08:00:00Z');
  await utimes(staged, mtime, mtime);
  await first.intake.receive({
    channel: 'sftp', counterpartyId: 'demo-employer', externalId: 'restart-2.xml', receivedAt: new Date(),
    content: { bytes: Buffer.from(windowDocument) },
    metadata: { remotePath: join(remote.outbox, 'restart-2.xml'), size: Buffer.byteLength(windowDocument), mtime: mtime.getTime() },
  });
  await rename(staged, join(remote.outbox, 'restart-2.xml'));
  await sleep(800); // polled at least twice: seen, stable, found already recorded, archiving fails
  expect((await readdir(remote.outbox)).sort()).toEqual(['restart-1.xml', 'restart-2.xml']);
  await stopGateway(first);

  await mkdir(remote.archive);
  const second = await startGateway(sftpSettings(remote), database);
  await waitFor(async () => (await readdir(remote.outbox)).length === 0, 'both files archived after the restart');
  // The poller records a removal just after the move on the server.
  await waitFor(async () => (await query(second, 'SELECT 1 FROM remote_files WHERE removed_at IS NULL')).length === 0, 'both removals recorded');
  const rows = await messagesNamed(second, ['restart-1.xml', 'restart-2.xml']);
  assert.deepEqual(rows.map((m) => [m.external_id, m.duplicate_of]), [['restart-1.xml', null], ['restart-2.xml', null]], 'one message per file');
  expect((await readdir(remote.archive)).sort()).toEqual(rows.map((m) => `${m.id}-${m.external_id}`).sort());
  const recorded = await query<{ message_id: string; removed: boolean }>(second,
    `SELECT message_id, removed_at IS NOT NULL AS removed FROM remote_files ORDER BY remote_path`);
  assert.deepEqual(recorded, rows.map((m) => ({ message_id: m.id, removed: true })));
  await stopGateway(second);
});

test('a server whose host key is not the pinned one is refused and nothing is taken', async () => {
  const wrongPin = `SHA256:${'A'.repeat(43)}`;
  const errors: string[] = [];
  const log: SftpSessionLog = { debug() {}, info() {}, warn() {}, error: (_obj, msg) => errors.push(msg ?? '') };
  const endpoint = { host: sshd.host, port: sshd.port, username: sshd.username, privateKeyPath: sshd.clientKeyPath, timeoutMs: 5000 };
  const refused = new SftpSession({ counterpartyId: 'demo-employer', endpoint: { ...endpoint, hostKeySha256: wrongPin }, log });
  await assert.rejects(refused.run('list', (client) => client.list(sshd.root)), (error: unknown) => isGatewayError(error) && error.code === 'SFTP_HOST_KEY_MISMATCH');
  await refused.close();
  assert.equal(errors.length, 1);
  assert.match(errors[0]!, /demo-employer/);
  assert.ok(errors[0]!.includes(wrongPin) && errors[0]!.includes(sshd.hostKeySha256), 'the log names both fingerprints');
  const trusted = new SftpSession({ counterpartyId: 'demo-employer', endpoint: { ...endpoint, hostKeySha256: sshd.hostKeySha256 }, log });
  assert.ok(Array.isArray(await trusted.run('list', (client) => client.list(sshd.root))), 'the pinned key is accepted');
  await trusted.close();

  const remote = await remoteFolders('wrong-key');
  const gateway = await startGateway(sftpSettings(remote, { hostKeySha256: wrongPin }));
  await writeFile(join(remote.outbox, 'refused.xml'), feeDocument('refused.xml', '340'));
  await sleep(1500);
  assert.deepEqual(await query(gateway, `SELECT id FROM messages WHERE channel = 'sftp'`), []);
  expect(await readdir(remote.outbox)).toEqual(['refused.xml']);
  assert.equal((await stat(join(remote.outbox, 'refused.xml'))).isFile(), true);
  await stopGateway(gateway);
});

test('a listed name that is not a plain file name is never used: the file stays on the server, logged once while it does', async () => {
  const remote = await remoteFolders('names');
  // The gateway records what the poller hands over; this poller, with a log to read, is the only one polling.
  const database = await createTestDatabase(template.name);
  databases.push(database);
  const gateway = await startTestGateway({ database, roles: [] });
  gateways.push(gateway);
  const warnings: { name?: string; problem?: string }[] = [];
  const log: SftpSessionLog = { debug() {}, info() {}, warn: (obj) => warnings.push(obj as { name?: string }), error() {} };
  const session = new SftpSession({
    counterpartyId: 'demo-employer', log,
    endpoint: { host: sshd.host, port: sshd.port, username: sshd.username, privateKeyPath: sshd.clientKeyPath, hostKeySha256: sshd.hostKeySha256, timeoutMs: 5000 },
  });
  const workDir = join(gateway.dataDir, 'sftp-work', 'demo-employer');
  const poller = new RemoteSftpPoller({
    session, intake: gateway.intake, ledger: remoteFilesOf(gateway.deps.db), workDir, log,
    folders: { outboxPath: remote.outbox, archivePath: remote.archive, pollIntervalMs: 60_000, stableMs: 0 },
    maxDocumentBytes: 16 * 1024 * 1024, maxFetchBytes: 16 * 1024 * 1024, clock: () => new Date(),
  });
  await mkdir(join(workDir, 'incoming'), { recursive: true }); // not started: the test polls by hand

  // Names a Linux server allows and the gateway refuses: a line break (a forged log line),
  // a backslash (a path on Windows), a control character, an overlong name.
  const refused = ['fees\n2026-11-22 INFO forged.xml', '..\\..\\fees.xml', 'ctrl\x01.xml', `${'n'.repeat(201)}.xml`];
  for (const [index, name] of refused.entries()) await writeFile(join(remote.outbox, name), feeDocument(`REFUSED-${index}`, String(350 + index)));
  // A name starting with a dot is an upload under way: not taken, and not a problem to log.
  await writeFile(join(remote.outbox, '..hidden.xml'), feeDocument('HIDDEN', '360'));
  await writeFile(join(remote.outbox, 'plain.xml'), feeDocument('PLAIN', '361'));
  for (let poll = 0; poll < 3; poll += 1) await poller.pollOnce();

  const messages = await query<{ external_id: string }>(gateway, `SELECT external_id FROM messages WHERE channel = 'sftp'`);
  expect(messages).toEqual([{ external_id: 'plain.xml' }]);
  expect(warnings.map((w) => [w.name, w.problem]).sort()).toEqual([
    [JSON.stringify(refused[0]), 'it holds a control character'],
    [JSON.stringify(refused[1]), 'it holds a path separator'],
    [JSON.stringify(refused[2]), 'it holds a control character'],
    [JSON.stringify(refused[3]), 'it is longer than 200 bytes'],
  ].sort());
  expect((await readdir(remote.outbox)).sort()).toEqual([...refused, '..hidden.xml'].sort());
  expect(await readdir(remote.archive)).toEqual([expect.stringMatching(/^[0-9A-Z]{26}-plain\.xml$/)]);
  expect(await readdir(join(workDir, 'incoming'))).toEqual([]);
  expect(await readdir(workDir)).toEqual(['incoming']);

  // Gone and back: logged again, once.
  await rename(join(remote.outbox, refused[2]!), join(remote.outbox, '.aside'));
  await poller.pollOnce();
  await rename(join(remote.outbox, '.aside'), join(remote.outbox, refused[2]!));
  await poller.pollOnce();
  await poller.pollOnce();
  expect(warnings.length).toBe(refused.length + 1);
  expect(warnings.at(-1)?.name).toBe(JSON.stringify(refused[2]));
  await session.close();
});

test('a file listed over the size limit is answered DOCUMENT_TOO_LARGE without being fetched, and archived on the server', async () => {
  const remote = await remoteFolders('too-large');
  const custodian = await remoteFolders('too-large-custodian');
  const limits = { maxDocumentBytes: 64 * 1024, maxReportBytes: 256 * 1024 };
  const gateway = await startGateway(sftpSettings(remote, { limits, custodian }));
  const big = Buffer.alloc(1024 * 1024, '<');
  await writeFile(join(remote.outbox, 'big.xml'), big);
  await writeFile(join(remote.outbox, 'small.xml'), feeDocument('small.xml', '370'));
  // A custodian's report may be larger than a document, up to maxReportBytes: that one is fetched.
  await writeFile(join(custodian.outbox, 'report.xml'), Buffer.alloc(128 * 1024, ' '));
  await writeFile(join(custodian.outbox, 'huge-report.xml'), Buffer.alloc(512 * 1024, ' '));

  const rows = await waitFor(async () => {
    const found = await query<{ id: string; counterparty_id: string; external_id: string; status: string; error_code: string | null; size_bytes: string; raw_kept: boolean; raw_location: string | null }>(gateway,
      `SELECT id, counterparty_id, external_id, status, error_code, size_bytes::text, raw IS NOT NULL AS raw_kept, raw_location
         FROM messages WHERE channel = 'sftp' ORDER BY external_id`);
    return found.length === 4 && found.every((m) => m.status === 'applied' || m.status === 'rejected') && found;
  }, 'the four files recorded and settled');
  const byName = new Map(rows.map((row) => [row.external_id, row]));
  expect(byName.get('big.xml')).toMatchObject({
    counterparty_id: 'demo-employer', status: 'rejected', error_code: 'DOCUMENT_TOO_LARGE', size_bytes: String(big.length), raw_kept: false,
    raw_location: `sftp:${remote.outbox}/big.xml`,
  });
  expect(byName.get('huge-report.xml')).toMatchObject({
    counterparty_id: 'demo-custodian', status: 'rejected', error_code: 'DOCUMENT_TOO_LARGE', size_bytes: String(512 * 1024), raw_location: `sftp:${custodian.outbox}/huge-report.xml`,
  });
  expect(byName.get('small.xml')).toMatchObject({ status: 'applied', error_code: null });
  const report = byName.get('report.xml');
  expect(report).toMatchObject({ counterparty_id: 'demo-custodian', size_bytes: String(128 * 1024) });
  expect(report?.error_code).not.toBe('DOCUMENT_TOO_LARGE');
  expect(report?.raw_location).not.toMatch(/^sftp:/); // fetched, and kept in the document store

  // Answered like a file too large in a local inbox: MessageRejected with DOCUMENT_TOO_LARGE.
  const bigId = byName.get('big.xml')!.id;
  const answer = `big.${bigId}.MessageRejected.xml`;
  await waitFor(async () => (await readdir(remote.inbox)).includes(answer), 'the DOCUMENT_TOO_LARGE answer in the remote inbox');
  const response = await readFile(join(remote.inbox, answer), 'utf8');
  assert.match(response, /<Code>DOCUMENT_TOO_LARGE<\/Code>/);
  assert.match(response, new RegExp(`${big.length} bytes; the limit is ${limits.maxDocumentBytes} bytes`));

  // Still on the server, whole, in the archive; never in the gateway's work folder.
  await waitFor(async () => (await readdir(remote.outbox)).length === 0 && (await readdir(custodian.outbox)).length === 0, 'both outboxes emptied');
  assert.deepEqual(await readFile(join(remote.archive, `${bigId}-big.xml`)), big);
  expect((await readdir(custodian.archive)).sort()).toEqual([`${byName.get('huge-report.xml')!.id}-huge-report.xml`, `${report!.id}-report.xml`].sort());
  for (const counterparty of ['demo-employer', 'demo-custodian']) {
    const files = await readdir(join(gateway.dataDir, 'sftp-work', counterparty), { recursive: true });
    expect(files).toEqual(['incoming']);
  }
  await stopGateway(gateway);
});

test('without an archive, a file too large to fetch stays in the outbox and is answered once', async () => {
  const remote = await remoteFolders('too-large-kept', { createArchive: false });
  const gateway = await startGateway(sftpSettings(remote, { archive: false, limits: { maxDocumentBytes: 64 * 1024 } }));
  const big = Buffer.alloc(256 * 1024, '<');
  await writeFile(join(remote.outbox, 'kept.xml'), big);
  const [message] = await waitFor(async () => {
    const found = await messagesNamed(gateway, ['kept.xml']);
    return found[0]?.status === 'rejected' && found;
  }, 'kept.xml answered');
  await waitFor(async () => (await readdir(remote.inbox)).includes(`kept.${message!.id}.MessageRejected.xml`), 'the answer in the remote inbox');
  await sleep(1500); // a dozen polls, each listing the file again
  expect(await messagesNamed(gateway, ['kept.xml'])).toEqual([message]);
  expect(await readdir(remote.inbox)).toEqual([`kept.${message!.id}.MessageRejected.xml`]);
  assert.deepEqual(await readFile(join(remote.outbox, 'kept.xml')), big);
  const recorded = await query<{ removed: boolean }>(gateway, `SELECT removed_at IS NOT NULL AS removed FROM remote_files`);
  assert.deepEqual(recorded, [{ removed: false }]);
  await stopGateway(gateway);
});

/** Runs an `sftp -b` batch as the counterparty would, trusting exactly the test server's key. */
async function sftpBatch(commands: readonly string[]): Promise<void> {
  const knownHosts = join(sshd.root, '..', 'known_hosts');
  const { stdout } = await run('ssh-keyscan', ['-p', String(sshd.port), '-t', 'ed25519', sshd.host]);
  await writeFile(knownHosts, stdout);
  const batch = join(sshd.root, '..', `batch-${Date.now()}`);
  await writeFile(batch, `${commands.join('\n')}\n`);
  await run('sftp', ['-b', batch, '-i', sshd.clientKeyPath, '-P', String(sshd.port), '-o', `UserKnownHostsFile=${knownHosts}`, '-o', 'StrictHostKeyChecking=yes', `${sshd.username}@${sshd.host}`]);
}

test('two watch processes polling one remote folder take each file once; when the one polling stops, the other takes over', async () => {
  const remote = await remoteFolders('two-pollers');
  const database = await createTestDatabase(template.name);
  databases.push(database);
  // One queue prefix: the second gateway's intake feeds the first one's workers.
  const settings = { ...sftpSettings(remote), queuePrefix: `dgtest2p${Date.now().toString(36)}` };
  const first = await startGateway(settings, database);
  // Both run workers too: the first's stop empties the shared queues, and the second's reconciler fills them again.
  const second = await startTestGateway({ settings, database });
  gateways.push(second);
  // The first took the lease as it started; the second stands by.
  const holders = async () => Number((await query<{ n: string }>(second,
    `SELECT count(*)::text AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1 AND objid = hashtext('sftp:demo-employer')::oid`, [LEASE_LOCKS]))[0]!.n);
  assert.equal(await holders(), 1, 'one process holds the remote folder');
  const names = (from: number, to: number) => Array.from({ length: to - from }, (_, index) => `two-pollers-${from + index}.xml`);
  const drop = async (batch: readonly string[]) => {
    for (const name of batch) {
      const index = Number(name.replace(/\D/g, ''));
      await writeFile(join(remote.outbox, name), feeDocument(name, String(400 + index), new Date(Date.UTC(2026, 11, 1 + index)).toISOString().slice(0, 10)));
    }
  };
  const allApplied = async (batch: readonly string[]) => {
    const rows = await messagesNamed(second, batch);
    return rows.length >= batch.length && rows.every((row) => !['received', 'validated'].includes(row.status)) && rows;
  };

  await drop(names(0, 30));
  await waitFor(() => allApplied(names(0, 30)), 'the first 30 documents finished', 120_000);
  // The one polling stops: the other takes its lease and the next files.
  await stopGateway(first);
  await drop(names(30, 40));
  await waitFor(() => allApplied(names(30, 40)), 'the next 10 documents finished after the takeover', 120_000);
  await waitFor(async () => (await readdir(remote.outbox)).length === 0, 'the remote outbox emptied');

  assert.equal(await holders(), 1, 'the other holds it now');
  const messages = await messagesNamed(second, names(0, 40));
  assert.equal(messages.length, 40, 'one message per file');
  assert.deepEqual([...new Set(messages.map((row) => row.status))], ['applied'], 'none a duplicate');
  const fetched = await query<{ n: string }>(second, `SELECT count(*)::text AS n FROM remote_files WHERE counterparty_id = 'demo-employer'`);
  assert.equal(Number(fetched[0]!.n), 40, 'each file fetched once');
  await waitFor(async () => (await readdir(remote.inbox)).filter((name) => name.startsWith('two-pollers-')).length >= 40, 'every answer in the remote inbox', 60_000);
  await sleep(500); // a second answer would be delivered by now
  assert.equal((await readdir(remote.inbox)).filter((name) => name.startsWith('two-pollers-')).length, 40, 'one answer per file');
}, 240_000);

