/**
 * A warning the folder benchmarks print when their figures may read low for a reason
 * outside the gateway. On ext4 without a journal, the kernel will not reuse an inode
 * freed in the last minute (six minutes while its inode table is not yet written back):
 * creating a file then scans past every recently freed one. A benchmark run deletes
 * tens of thousands of files when it cleans up, so the next run started within minutes
 * creates its files several times slower — the bench client's drops and the gateway's
 * outbox writes alike. (A journaled file system has no such wait.)
 */
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** How long after many deletions the kernel may still pass over the freed inodes. */
const RECENT_MS = 6 * 60_000;

/** The file system a path is on: its mount's type and device, from /proc (Linux). */
function mountOf(path: string): { type: string; source: string } | undefined {
  let best: { point: string; type: string; source: string } | undefined;
  try {
    for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
      const [left, right] = line.split(' - ');
      const point = left?.split(' ')[4];
      const [type, source] = right?.split(' ') ?? [];
      if (!point || !type || !source) continue;
      const within = path === point || path.startsWith(point.endsWith('/') ? point : `${point}/`);
      if (within && (!best || point.length > best.point.length)) best = { point, type, source };
    }
  } catch {
    return undefined;
  }
  return best;
}

/** True when `path` is on ext4 without a journal (no jbd2 entry for its device). */
function onExt4WithoutJournal(path: string): boolean {
  const mount = mountOf(path);
  if (mount?.type !== 'ext4') return false;
  const device = basename(mount.source);
  const journals = existsSync('/proc/fs/jbd2') ? readdirSync('/proc/fs/jbd2') : [];
  return !journals.some((name) => name.startsWith(`${device}-`));
}

/** A note to print before the run, or undefined; `marker` records when the last run cleaned up. */
export function fileSystemNote(dataRoot: string, marker: string): string | undefined {
  if (!onExt4WithoutJournal(dataRoot)) return undefined;
  const cleanedAt = existsSync(marker) ? statSync(marker).mtimeMs : 0;
  const ago = Date.now() - cleanedAt;
  if (ago >= RECENT_MS) return undefined;
  return `${dataRoot} is on ext4 without a journal, where creating files is several times slower for up to six minutes after many were deleted; the last benchmark cleaned up ${Math.round(ago / 1000)} s ago, so these figures may read low (wait, or set TMPDIR to another file system)`;
}

/** Records that a run just deleted its files from `dataRoot` (only where that matters). */
export function markCleanUp(marker: string, dataRoot: string): void {
  if (!onExt4WithoutJournal(dataRoot)) return;
  try {
    writeFileSync(marker, new Date().toISOString());
  } catch {
    // Only a note depends on it.
  }
}

/** Above this median cost of a client's drop (write and rename of a 2 KB file), µs, the file system was slow. */
const SLOW_DROP_US = 300;

/** A note after the run when a scenario's drops were slow: the file system, not the gateway, held the figures back. */
export function slowDropNote(dataRoot: string, scenarios: readonly { name: string; dropCostUs: { p50: number } }[]): string | undefined {
  const slow = scenarios.filter((scenario) => scenario.dropCostUs.p50 > SLOW_DROP_US);
  if (slow.length === 0) return undefined;
  const costs = slow.map((scenario) => `${scenario.name} ${scenario.dropCostUs.p50} µs`).join(', ');
  return `creating files in ${dataRoot} was slow during this run (the client's median drop: ${costs}; usually 30–60 µs on a disk): the gateway's outbox writes were slowed alike, so these figures read low (a file system that has just deleted many files, e.g. after a benchmark's or the test suite's clean-up on ext4 without a journal, is slow like this for minutes)`;
}

export const cleanUpMarker = (resultsFolder: string) => join(resultsFolder, '.last-clean-up');
