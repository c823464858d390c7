import { test, describe, expect, afterEach } from '@jest/globals';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, lstat, mkdir, mkdtemp, readFile, readdir, readlink, rename, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Envelope, IntakePort, IntakeReceipt } from '../src/channels/envelope.ts';
import {
  FolderInboxWatcher,
  FolderOutbox,
  ensureCounterpartyFolders,
  isTemporaryName,
  type FolderChannelLog,
  type FolderChannelOptions,
  type FolderCounterparty,
} from '../src/channels/folder.channel.ts';
import type { OutgoingDocument } from '../src/channels/outbound.ts';
import { isGatewayError } from '../src/core/gateway-error.ts';

/**
 * Integration tests of the folder channel against real folders under the system temp
 * directory. Intake is a recording double of our own port; the filesystem and its
 * change notifications are real.
 */

const RECEIVED_AT = new Date('2026-03-14T23:30:00.000Z'); // archive date is UTC: 2026-03-14

interface Handover {
  readonly envelope: Envelope;
  /** Whether the file was still in the inbox while intake had it (nothing leaves before commit). */
  readonly fileInInbox: boolean;
  /** For content handed over by path: what reading that path gave while intake had it. */
  readonly bytesAtPath?: Buffer;
}

/** Records envelopes; answers DOCUMENT_TOO_LARGE for file content, as intake does. */
class RecordingIntake implements IntakePort {
  readonly handovers: Handover[] = [];
  attempts = 0;
  failing = false;

  async receive(envelope: Envelope): Promise<IntakeReceipt> {
    this.attempts += 1;
    const fileInInbox = existsSync(join(folderOf(envelope), 'inbox', envelope.externalId));
    if (this.failing) throw new Error('database unavailable');
    const bytesAtPath = 'path' in envelope.content ? await readFile(envelope.content.path) : undefined;
    await sleep(5); // a commit takes a moment; the file must stay put meanwhile
    this.handovers.push({ envelope, fileInInbox, ...(bytesAtPath ? { bytesAtPath } : {}) });
    const messageId = `01TEST${String(this.handovers.length).padStart(4, '0')}`;
    return 'path' in envelope.content
      ? { messageId, status: 'rejected', errorCode: 'DOCUMENT_TOO_LARGE' }
      : { messageId, status: 'received' };
  }

  names(): string[] {
    return this.handovers.map((h) => h.envelope.externalId);
  }
}

const folders = new Map<string, string>();
function folderOf(envelope: Envelope): string {
  return folders.get(envelope.counterpartyId) ?? assert.fail(`unknown counterparty ${envelope.counterpartyId}`);
}

/** What a test leaves to undo (folders, watchers), undone in reverse as it ends. */
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function makeCounterparty(id = 'custodian-a'): Promise<FolderCounterparty> {
  const folder = await mkdtemp(join(tmpdir(), 'dg-folder-'));
  cleanups.push(() => rm(folder, { recursive: true, force: true }));
  await ensureCounterpartyFolders(folder);
  folders.set(id, folder);
  return { id, folder };
}

/** A FolderOutbox with a work folder of its own beside the test's folders. */
async function newOutbox(counterparties: readonly FolderCounterparty[]): Promise<FolderOutbox> {
  const workRoot = await mkdtemp(join(tmpdir(), 'dg-outbox-work-'));
  cleanups.push(() => rm(workRoot, { recursive: true, force: true }));
  return new FolderOutbox(counterparties, { workRoot });
}

async function startWatcher(
  counterparty: FolderCounterparty,
  intake: IntakePort,
  overrides: Partial<FolderChannelOptions> = {},
): Promise<FolderInboxWatcher> {
  const watcher = new FolderInboxWatcher({
    counterparties: [counterparty],
    intake,
    maxDocumentBytes: 64 * 1024,
    stableMs: 150,
    pollIntervalMs: 25,
    rescanEveryMs: 1000,
    clock: () => RECEIVED_AT,
    ...overrides,
  });
  cleanups.push(() => watcher.stop());
  await watcher.start();
  return watcher;
}

async function waitFor<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

/** Every file under `root`, as sorted paths relative to it. */
async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}

/** A log that keeps its warnings. */
function recordingLog(): FolderChannelLog & { readonly warnings: { obj: Record<string, unknown>; msg: string }[] } {
  const warnings: { obj: Record<string, unknown>; msg: string }[] = [];
  return { warnings, info() {}, error() {}, warn: (obj, msg) => warnings.push({ obj: obj as Record<string, unknown>, msg: msg ?? '' }) };
}

function bytesOf(handover: Handover | undefined): Buffer {
  assert.ok(handover, 'no handover');
  assert.ok('bytes' in handover.envelope.content, 'content has no bytes');
  return Buffer.from(handover.envelope.content.bytes);
}

describe('isTemporaryName', () => {
  test('recognises upload and scratch names, case-insensitively', () => {
    for (const name of ['.hidden.xml', 'a.tmp', 'a.xml.PART', 'a.partial', 'a.xml.filepart', 'a.crdownload', 'a.Uploading', '~$report.xml']) {
      assert.equal(isTemporaryName(name), true, name);
    }
    for (const name of ['holdings.xml', 'partial-report.xml', 'tmp.xml', 'a~$b.xml']) {
      assert.equal(isTemporaryName(name), false, name);
    }
  });
});

describe('FolderInboxWatcher', () => {
  test('a dropped file is handed over once and archived under its message id', async () => {
    const cp = await makeCounterparty();
    const intake = new RecordingIntake();
    const watcher = await startWatcher(cp, intake);
    const body = Buffer.from('<ChangeFee>…</ChangeFee>');
    await writeFile(join(cp.folder, 'inbox', 'fee-1.xml'), body);

    const archived = join('archive', '2026-03-14', '01TEST0001-fee-1.xml');
    await waitFor(() => existsSync(join(cp.folder, archived)), 'the file to be archived');
    await watcher.idle();

    assert.deepEqual(intake.names(), ['fee-1.xml']);
    const [handover] = intake.handovers;
    assert.deepEqual(bytesOf(handover), body);
    assert.equal(handover?.envelope.channel, 'folder');
    assert.equal(handover?.envelope.counterpartyId, 'custodian-a');
    assert.equal(handover?.envelope.receivedAt, RECEIVED_AT);
    assert.deepEqual(handover?.envelope.metadata, { fileName: 'fee-1.xml' });
    assert.equal(handover?.fileInInbox, true);
    expect(await listFiles(cp.folder)).toEqual([archived]);
    assert.deepEqual(await readFile(join(cp.folder, archived)), body);
  });

  test('a file present before start() is taken', async () => {
    const cp = await makeCounterparty();
    await writeFile(join(cp.folder, 'inbox', 'early.xml'), 'early');
    const intake = new RecordingIntake();
    await startWatcher(cp, intake);

    await waitFor(() => intake.handovers.length === 1, 'the early file to be handed over');
    await waitFor(async () => (await readdir(join(cp.folder, 'inbox'))).length === 0, 'the inbox to empty');
    assert.deepEqual(intake.names(), ['early.xml']);
    assert.equal(bytesOf(intake.handovers[0]).toString(), 'early');
    expect(await listFiles(join(cp.folder, 'archive'))).toEqual([join('2026-03-14', '01TEST0001-early.xml')]);
  });

  test('a file still being written when start() runs is taken only once complete', async () => {
    // Found by the listing at start, not by a notification: the watcher must still wait for the writer.
    const cp = await makeCounterparty();
    const path = join(cp.folder, 'inbox', 'growing.xml');
    const chunks = Array.from({ length: 5 }, (_, i) => `<chunk n="${i}"/>\n`);
    await writeFile(path, chunks[0] ?? '');
    const intake = new RecordingIntake();
    await startWatcher(cp, intake, { stableMs: 300 });
    for (const chunk of chunks.slice(1)) {
      await sleep(60);
      await appendFile(path, chunk);
    }

    await waitFor(() => intake.handovers.length === 1, 'the growing file to be handed over');
    assert.equal(bytesOf(intake.handovers[0]).toString(), chunks.join(''));
    await waitFor(() => !existsSync(path), 'the growing file to leave the inbox');
    assert.equal(intake.attempts, 1);
  });

  test('a file is never with intake twice at once, however often it is reported', async () => {
    const cp = await makeCounterparty();
    const intake = new RecordingIntake();
    const slowIntake: IntakePort = { receive: (envelope) => sleep(500).then(() => intake.receive(envelope)) };
    await startWatcher(cp, slowIntake, { stableMs: 0, rescanEveryMs: 50 });
    const path = join(cp.folder, 'inbox', 'slow-commit.xml');
    await writeFile(path, 'once');

    await waitFor(() => !existsSync(path), 'the file to leave the inbox');
    await sleep(150);
    assert.equal(intake.attempts, 1);
    expect(await listFiles(join(cp.folder, 'archive'))).toEqual([join('2026-03-14', '01TEST0001-slow-commit.xml')]);
  });

  test('temporary names are never taken; the renamed upload is', async () => {
    const cp = await makeCounterparty();
    const intake = new RecordingIntake();
    await startWatcher(cp, intake, { rescanEveryMs: 100 });
    const inbox = join(cp.folder, 'inbox');
    for (const name of ['x.xml.part', '.hidden.xml', 'y.tmp']) await writeFile(join(inbox, name), name);
    await writeFile(join(inbox, 'control.xml'), 'control');

    await waitFor(() => intake.handovers.length === 1, 'the control file to be handed over');
    await sleep(500); // several rescans and stability windows pass: a negative needs a wait
    assert.deepEqual(intake.names(), ['control.xml']);
    expect((await readdir(inbox)).sort()).toEqual(['.hidden.xml', 'x.xml.part', 'y.tmp']);

    await rename(join(inbox, 'x.xml.part'), join(inbox, 'x.xml'));
    await waitFor(() => intake.handovers.length === 2, 'x.xml to be handed over');
    assert.deepEqual(intake.names(), ['control.xml', 'x.xml']);
    assert.equal(bytesOf(intake.handovers[1]).toString(), 'x.xml.part');
    await waitFor(() => existsSync(join(cp.folder, 'archive', '2026-03-14', '01TEST0002-x.xml')), 'x.xml to be archived');
  });

  test('a file its sender goes on writing after it was taken is noticed: a warning and a note on its message', async () => {
    const cp = await makeCounterparty();
    const grew: { messageId: string; bytesRead: number; sizeNow: number }[] = [];
    const intake = new RecordingIntake();
    const noting: IntakePort = { receive: (envelope) => intake.receive(envelope), inboxFileGrew: async (messageId, sizes) => void grew.push({ messageId, ...sizes }) };
    const log = recordingLog();
    // The upload stalls past the grace: its document does not end, yet it is taken as it is.
    await startWatcher(cp, noting, { stableMs: 100, rescanEveryMs: 200, incompleteGraceMs: 300, log });
    const path = join(cp.folder, 'inbox', 'paused.xml');
    await writeFile(path, '<Holdings>first part');
    await waitFor(() => intake.handovers.length === 1, 'the paused upload to be taken');
    const archived = join(cp.folder, 'archive', '2026-03-14', '01TEST0001-paused.xml');
    await waitFor(() => existsSync(archived), 'the taken file to be archived');
    // The sender's connection still has the file open: its next write lands in the archived file.
    await appendFile(archived, ' and the rest</Holdings>');

    await waitFor(() => grew.length === 1, 'the growth to be noted on the message');
    assert.deepEqual(grew, [{ messageId: '01TEST0001', bytesRead: 20, sizeNow: 44 }]);
    assert.ok(log.warnings.some((w) => /grew after it was taken/.test(w.msg) && w.obj.name === 'paused.xml'), JSON.stringify(log.warnings));
    await sleep(700); // reported once, not at every rescan
    assert.equal(grew.length, 1);
  });

  test('a document that does not end yet waits through pauses longer than stableMs and is taken once, whole; a later file of its sender waits behind it', async () => {
    const cp = await makeCounterparty();
    const intake = new RecordingIntake();
    await startWatcher(cp, intake, { stableMs: 100, rescanEveryMs: 200 });
    const path = join(cp.folder, 'inbox', 'throttled.xml');
    const bursts = ['<?xml version="1.0"?>\n<Holdings xmlns="urn:x">\n', ...Array.from({ length: 3 }, (_, i) => `  <Account n="${i}">${'x'.repeat(20_000)}</Account>\n`), '</Holdings>\n'];
    for (const [i, burst] of bursts.entries()) {
      await appendFile(path, burst);
      // A complete file of the same sender, newer than throttled.xml as it stands: it waits behind it.
      if (i === 2) await sleep(30).then(() => writeFile(join(cp.folder, 'inbox', 'after.xml'), '<Holdings xmlns="urn:x"/>'));
      if (i < bursts.length - 1) {
        await sleep(450); // a throttled client's gap: over four stability windows
        expect(intake.names()).toEqual(i < 3 ? [] : ['after.xml']);
      }
    }
    await waitFor(() => intake.handovers.length === 2, 'both files to be handed over');
    // throttled.xml's next burst made after.xml the older: it went then, throttled.xml once whole.
    assert.deepEqual(intake.names(), ['after.xml', 'throttled.xml']);
    assert.equal(bytesOf(intake.handovers[1]).toString(), bursts.join(''));
    await sleep(400);
    assert.equal(intake.attempts, 2, 'each taken once');
  });

  test('a document that stays unfinished is taken as it is once unchanged past incompleteGraceMs, with a warning', async () => {
    const cp = await makeCounterparty();
    const intake = new RecordingIntake();
    const log = recordingLog();
    await startWatcher(cp, intake, { stableMs: 100, rescanEveryMs: 200, incompleteGraceMs: 1200, log });
    const written = Date.now();
    await writeFile(join(cp.folder, 'inbox', 'cut.xml'), '<Holdings xmlns="urn:x"><Account>1</Acc');
    await waitFor(() => intake.handovers.length === 1, 'the unfinished file to be taken');
    assert.ok(Date.now() - written >= 1150, `taken after ${Date.now() - written} ms, before its grace ran out`);
    assert.equal(bytesOf(intake.handovers[0]).toString(), '<Holdings xmlns="urn:x"><Account>1</Acc');
    assert.ok(log.warnings.some((w) => /taken as it is/.test(w.msg)), JSON.stringify(log.warnings));
  });

  test('an unfinished document another process holds open for writing is not taken past its grace until that process closes it', async () => {
    const cp = await makeCounterparty();
    const intake = new RecordingIntake();
    await startWatcher(cp, intake, { stableMs: 100, rescanEveryMs: 200, incompleteGraceMs: 300 });
    const path = join(cp.folder, 'inbox', 'held.xml');
    await writeFile(path, '<Holdings xmlns="urn:x"><Account>');
    // A writer like an SFTP server's session: the file open for appending, nothing written for now.
    const writer = spawn('sh', ['-c', 'exec 3>>"$1"; echo open; exec sleep 60', 'sh', path], { stdio: ['ignore', 'pipe', 'ignore'] });
    cleanups.push(() => writer.kill('SIGKILL'));
    await new Promise((resolve) => writer.stdout.once('data', resolve));
    await sleep(1500); // five times the grace
    assert.equal(intake.attempts, 0, 'taken while its writer had it open');
    writer.kill('SIGKILL');
    await waitFor(() => intake.handovers.length === 1, 'the file to be taken once its writer closed it');
  });

  test('a file that stays as it was taken is not reported', async () => {
    const cp = await makeCounterparty();
    const grew: string[] = [];
    const intake = new RecordingIntake();
    await startWatcher(cp, { receive: (envelope) => intake.receive(envelope), inboxFileGrew: async (messageId) => void grew.push(messageId) }, { stableMs: 100, rescanEveryMs: 100 });
    await writeFile(join(cp.folder, 'inbox', 'whole.xml'), '<Holdings/>');
    await waitFor(() => intake.handovers.length === 1, 'the file to be taken');
    await sleep(600); // past every rescan that looks at it
    assert.deepEqual(grew, []);
  });

  test('a file written slowly is taken once, after its last chunk, complete', async () => {
    const cp = await makeCounterparty();
    const intake = new RecordingIntake();
    await startWatcher(cp, intake, { stableMs: 300 });
    const path = join(cp.folder, 'inbox', 'slow.xml');
    const chunks = Array.from({ length: 5 }, (_, i) => `<chunk n="${i}">${'x'.repeat(1000)}</chunk>\n`);

    for (const [i, chunk] of chunks.entries()) {
      if (i > 0) await sleep(60);
      await appendFile(path, chunk);
      assert.equal(intake.attempts, 0, `handed over before chunk ${i + 1} of 5 was written`);
    }
    const lastWriteAt = Date.now();

    await waitFor(() => intake.handovers.length === 1, 'the slow file to be handed over');
    assert.ok(Date.now() - lastWriteAt >= 250, 'taken before it had been stable for stableMs');
    assert.equal(bytesOf(intake.handovers[0]).toString(), chunks.join(''));
    await waitFor(() => !existsSync(path), 'the slow file to leave the inbox');
    await sleep(400); // a late second report must not lead to a second handover
    assert.equal(intake.attempts, 1);
  });

  test('a file over the limit is handed over by path and set aside when intake refuses it', async () => {
    const cp = await makeCounterparty();
    const intake = new RecordingIntake();
    await startWatcher(cp, intake, { maxDocumentBytes: 1024 });
    const inboxPath = join(cp.folder, 'inbox', 'holdings.xml');
    const body = Buffer.alloc(4096, 'h');
    await writeFile(inboxPath, body);

    const setAsidePath = join(cp.folder, 'rejected', 'holdings.xml');
    await waitFor(() => existsSync(setAsidePath), 'the large file to be set aside');
    const [handover] = intake.handovers;
    const content = handover?.envelope.content;
    assert.ok(content && 'path' in content, 'handed over by path');
    assert.equal(content.setAsidePath, setAsidePath);
    // On Linux the path names the descriptor the watcher opened: it reads the file that was checked.
    if (process.platform === 'linux') assert.match(content.path, /^\/proc\/self\/fd\/\d+$/);
    else assert.equal(content.path, inboxPath);
    assert.deepEqual(handover?.bytesAtPath, body);
    assert.equal(handover?.fileInInbox, true);
    assert.deepEqual(await readFile(setAsidePath), body);
    expect(await listFiles(cp.folder)).toEqual([join('rejected', 'holdings.xml')]);
  });

  test('a file whose intake failed stays in the inbox and is retaken by the rescan', async () => {
    const cp = await makeCounterparty();
    const intake = new RecordingIntake();
    intake.failing = true;
    await startWatcher(cp, intake, { rescanEveryMs: 200 });
    const path = join(cp.folder, 'inbox', 'retry.xml');
    await writeFile(path, 'retry me');

    await waitFor(() => intake.attempts >= 2, 'a failed first attempt and a rescan retry');
    assert.equal(intake.handovers.length, 0);
    assert.equal((await readFile(path)).toString(), 'retry me');

    intake.failing = false;
    const archived = join(cp.folder, 'archive', '2026-03-14', '01TEST0001-retry.xml');
    await waitFor(() => existsSync(archived), 'the file to be archived after intake recovered');
    assert.deepEqual(intake.names(), ['retry.xml']);
    assert.equal(bytesOf(intake.handovers[0]).toString(), 'retry me');
    expect(await readdir(join(cp.folder, 'inbox'))).toEqual([]);
  });

  test('a symbolic link, a FIFO or a folder in the inbox is not taken: it goes to rejected/ as it is, logged once, and the file after it is taken', async () => {
    const cp = await makeCounterparty();
    const outside = await mkdtemp(join(tmpdir(), 'dg-outside-'));
    cleanups.push(() => rm(outside, { recursive: true, force: true }));
    const secret = join(outside, 'secret.xml');
    await writeFile(secret, '<secret/>');
    const intake = new RecordingIntake();
    const log = recordingLog();
    const watcher = await startWatcher(cp, intake, { log, rescanEveryMs: 100 });
    const inbox = join(cp.folder, 'inbox');
    await symlink(secret, join(inbox, 'link.xml'));
    execFileSync('mkfifo', [join(inbox, 'pipe.xml')]);
    await mkdir(join(inbox, 'folder.xml'));
    await sleep(300); // a few rescans
    await writeFile(join(inbox, 'after.xml'), 'after');

    await waitFor(() => intake.handovers.length === 1 && existsSync(join(cp.folder, 'archive', '2026-03-14', '01TEST0001-after.xml')), 'the file after them to be taken');
    await watcher.idle();
    assert.deepEqual(intake.names(), ['after.xml']);
    expect(await readdir(inbox)).toEqual([]);
    const rejected = join(cp.folder, 'rejected');
    expect((await readdir(rejected)).sort()).toEqual(['folder.xml', 'link.xml', 'pipe.xml']);
    assert.equal(await readlink(join(rejected, 'link.xml')), secret, 'the link moved as it is');
    assert.equal((await lstat(join(rejected, 'pipe.xml'))).isFIFO(), true);
    assert.equal((await lstat(join(rejected, 'folder.xml'))).isDirectory(), true);
    assert.equal(await readFile(secret, 'utf8'), '<secret/>');
    assert.deepEqual(
      log.warnings.map((w) => [w.obj.kind, w.obj.target]).sort(),
      [['FIFO', join(rejected, 'pipe.xml')], ['folder', join(rejected, 'folder.xml')], ['symbolic link', join(rejected, 'link.xml')]],
    );
  });

  test('an entry that is not a regular file and cannot be moved to rejected/ stays, logged once however often the inbox is listed', async () => {
    const cp = await makeCounterparty();
    const outside = await mkdtemp(join(tmpdir(), 'dg-outside-'));
    cleanups.push(() => rm(outside, { recursive: true, force: true }));
    await writeFile(join(outside, 'secret.xml'), '<secret/>');
    const intake = new RecordingIntake();
    const log = recordingLog();
    await startWatcher(cp, intake, { log, rescanEveryMs: 50 });
    // rejected/ made a regular file: nothing can be moved into it.
    await rm(join(cp.folder, 'rejected'), { recursive: true });
    await writeFile(join(cp.folder, 'rejected'), 'not a folder');
    const link = join(cp.folder, 'inbox', 'link.xml');
    await symlink(join(outside, 'secret.xml'), link);

    await waitFor(() => log.warnings.length === 1, 'the link to be refused');
    await sleep(600); // a dozen rescans, each finding the link again
    assert.equal(log.warnings.length, 1);
    assert.match(log.warnings[0]!.msg, /symbolic link.*stays in the inbox/);
    assert.equal((await lstat(link)).isSymbolicLink(), true);
    assert.equal(intake.attempts, 0);

    // A regular file under that name later is taken.
    await rm(link);
    await sleep(150);
    await writeFile(link, 'a file now');
    await waitFor(() => intake.handovers.length === 1, 'the regular file to be taken');
    assert.equal(bytesOf(intake.handovers[0]).toString(), 'a file now');
  });

  test('never more than maxInFlight files are being taken; each counterparty\'s files reach intake oldest first, the counterparties side by side', async () => {
    const employer = await makeCounterparty('employer-a');
    const custodian = await makeCounterparty('custodian-b');
    let active = 0;
    let peak = 0;
    const activeOf = new Map<string, number>();
    let peakCounterparties = 0;
    const order: string[] = [];
    // Like the real intake, files handed over together are recorded in one call (receiveMany).
    const receiveMany = async (envelopes: readonly Envelope[]) => {
      for (const envelope of envelopes) {
        active += 1;
        activeOf.set(envelope.counterpartyId, (activeOf.get(envelope.counterpartyId) ?? 0) + 1);
      }
      peak = Math.max(peak, active);
      peakCounterparties = Math.max(peakCounterparties, [...activeOf.values()].filter((n) => n > 0).length);
      await sleep(30);
      return envelopes.map((envelope) => {
        active -= 1;
        activeOf.set(envelope.counterpartyId, (activeOf.get(envelope.counterpartyId) ?? 0) - 1);
        order.push(`${envelope.counterpartyId}/${envelope.externalId}`);
        return { receipt: { messageId: `m-${envelope.externalId}`, status: 'received' as const } };
      });
    };
    const intake: IntakePort = {
      receive: async (envelope) => {
        const [outcome] = await receiveMany([envelope]);
        if (!outcome) throw new Error('no outcome');
        return outcome.receipt;
      },
      receiveMany,
    };
    // Written in this order, with distinct mtimes; the names sort the other way round.
    const names = Array.from({ length: 5 }, (_, i) => `doc-${9 - i}.xml`);
    for (const [index, name] of names.entries()) {
      for (const cp of [employer, custodian]) {
        const path = join(cp.folder, 'inbox', name);
        await writeFile(path, name);
        const when = new Date(Date.now() - 60_000 + index * 1000);
        await utimes(path, when, when);
      }
    }
    const watcher = new FolderInboxWatcher({
      counterparties: [employer, custodian], intake, maxDocumentBytes: 64 * 1024, stableMs: 0, pollIntervalMs: 25, rescanEveryMs: 1000, maxInFlight: 4,
    });
    cleanups.push(() => watcher.stop());
    await watcher.start();

    await waitFor(() => order.length === 2 * names.length, 'all files to be handed over');
    await watcher.idle();
    assert.ok(peak <= 4, `at most maxInFlight files with intake at once (${peak})`);
    assert.equal(peakCounterparties, 2, 'the two counterparties\' files go side by side');
    assert.deepEqual(order.filter((entry) => entry.startsWith('employer-a/')), names.map((name) => `employer-a/${name}`), 'in mtime order');
    assert.deepEqual(order.filter((entry) => entry.startsWith('custodian-b/')), names.map((name) => `custodian-b/${name}`), 'in mtime order');
    expect(await readdir(join(employer.folder, 'inbox'))).toEqual([]);
  });
});

describe('FolderOutbox', () => {
  function outgoing(counterpartyId: string, body: string, fileName = 'fee-1.01TEST0001.ChangeFeeResponse.xml'): OutgoingDocument {
    return { messageId: '01TEST0001', counterpartyId, documentType: 'ChangeFeeResponse', fileName, body, requestMetadata: {} };
  }

  test('writes atomically under the deterministic name; a repeat overwrites the one file', async () => {
    const cp = await makeCounterparty('employer-b');
    await rm(join(cp.folder, 'outbox'), { recursive: true }); // created when missing
    const outbox = await newOutbox([cp]);
    const first = 'å'.repeat(512 * 1024); // 1 MiB of UTF-8
    const second = 'b'.repeat(2 * 1024 * 1024);
    const target = join(cp.folder, 'outbox', 'fee-1.01TEST0001.ChangeFeeResponse.xml');

    // Watch the final name while delivering: it must only ever hold a complete body.
    const seenSizes = new Set<number>();
    let delivering = true;
    const watching = (async () => {
      while (delivering) {
        const size = await stat(target).then((s) => s.size, () => undefined);
        if (size !== undefined) seenSizes.add(size);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const firstResult = await outbox.deliver(outgoing('employer-b', first));
    assert.equal(await readFile(target, 'utf8'), first);
    const secondResult = await outbox.deliver(outgoing('employer-b', second));
    delivering = false;
    await watching;

    assert.deepEqual(firstResult, { target });
    assert.deepEqual(secondResult, { target });
    assert.equal(outbox.name, 'folder');
    assert.equal(await readFile(target, 'utf8'), second);
    expect(await readdir(join(cp.folder, 'outbox'))).toEqual(['fee-1.01TEST0001.ChangeFeeResponse.xml']);
    for (const size of seenSizes) assert.ok(size === 1024 * 1024 || size === 2 * 1024 * 1024, `saw a partial file of ${size} bytes`);
  });

  test('deliveries side by side into one outbox each land whole, with no temporary file left', async () => {
    const cp = await makeCounterparty('employer-d');
    const outbox = await newOutbox([cp]);
    const names = Array.from({ length: 50 }, (_, i) => `doc-${String(i).padStart(2, '0')}.01TEST0001.ChangeFeeResponse.xml`);
    await Promise.all(names.map((name, i) => outbox.deliver(outgoing('employer-d', `<r n="${i}"/>`, name))));
    expect((await readdir(join(cp.folder, 'outbox'))).sort()).toEqual(names); // every file, and no temporary one left
    for (const [i, name] of names.entries()) assert.equal(await readFile(join(cp.folder, 'outbox', name), 'utf8'), `<r n="${i}"/>`);
  });

  test('a batch lands whole, each file in its own outbox; a document that cannot be delivered fails alone', async () => {
    const first = await makeCounterparty('employer-e');
    const second = await makeCounterparty('employer-f');
    const outbox = await newOutbox([first, second]);
    const outcomes = await outbox.deliverMany([
      outgoing('employer-e', '<a/>', 'a.01TEST0001.ChangeFeeResponse.xml'),
      outgoing('employer-f', '<b/>', 'b.01TEST0002.ChangeFeeResponse.xml'),
      outgoing('employer-e', '<evil/>', '../inbox/evil.xml'),
      outgoing('employer-e', '<c/>', 'c.01TEST0003.ChangeFeeResponse.xml'),
    ]);
    assert.deepEqual(outcomes.map((outcome) => ('target' in outcome ? relative(tmpdir(), outcome.target) : 'failed')), [
      relative(tmpdir(), join(first.folder, 'outbox', 'a.01TEST0001.ChangeFeeResponse.xml')),
      relative(tmpdir(), join(second.folder, 'outbox', 'b.01TEST0002.ChangeFeeResponse.xml')),
      'failed',
      relative(tmpdir(), join(first.folder, 'outbox', 'c.01TEST0003.ChangeFeeResponse.xml')),
    ]);
    const failure = outcomes[2];
    assert.ok(failure && 'error' in failure && isGatewayError(failure.error) && failure.error.code === 'DELIVERY_FAILED');
    expect(await listFiles(first.folder)).toEqual([join('outbox', 'a.01TEST0001.ChangeFeeResponse.xml'), join('outbox', 'c.01TEST0003.ChangeFeeResponse.xml')]);
    expect(await listFiles(second.folder)).toEqual([join('outbox', 'b.01TEST0002.ChangeFeeResponse.xml')]);
    assert.equal(await readFile(join(first.folder, 'outbox', 'c.01TEST0003.ChangeFeeResponse.xml'), 'utf8'), '<c/>');
  });

  test('an unknown counterparty or a path-like file name is DELIVERY_FAILED and writes nothing', async () => {
    const cp = await makeCounterparty('employer-c');
    const outbox = await newOutbox([cp]);
    const isDeliveryFailed = (error: unknown) => isGatewayError(error) && error.code === 'DELIVERY_FAILED';
    await assert.rejects(outbox.deliver(outgoing('nobody', '<x/>')), isDeliveryFailed);
    await assert.rejects(outbox.deliver(outgoing('employer-c', '<x/>', '../inbox/evil.xml')), isDeliveryFailed);
    expect(await listFiles(cp.folder)).toEqual([]);
  });
});
