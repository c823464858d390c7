import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { GatewayError } from '../core/gateway-error.ts';

/**
 * One process at a time for something only one process may use: the embedded
 * PostgreSQL's data folder. A lock file holds the owner's PID, created exclusively
 * (O_EXCL), so of two processes starting at once one wins. A lock whose owner is gone
 * (a kill -9, a power cut) is taken over. Released by `release()`, and at the latest
 * when the process exits normally.
 */
export interface ProcessLock {
  release(): void;
}

export function acquireProcessLock(path: string, what: string): ProcessLock {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(path);
      if (holder !== undefined && holder !== process.pid && isAlive(holder)) {
        throw new GatewayError(
          'DATA_FOLDER_IN_USE',
          `${what} is in use by process ${holder} (${path}). Stop that process first (kill -TERM ${holder}); while it runs, reach it through its staff API (the CLI's commands do when it answers at the configured host and port), or give this process another data folder (DATA_DIR).`,
          { details: { pid: holder, lock: path } },
        );
      }
      // Left by a process that no longer runs: take it over. Removed, then created
      // exclusively again, so two processes taking over at once still end with one owner.
      rmSync(path, { force: true });
      continue;
    }
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      process.off('exit', release);
      if (readHolder(path) === process.pid) rmSync(path, { force: true });
    };
    process.on('exit', release);
    return { release };
  }
  throw new GatewayError('DATA_FOLDER_IN_USE', `${what}: the lock ${path} keeps changing hands; is another process starting on the same data folder?`);
}

function readHolder(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** True while a process with this PID runs (one we may not signal counts as running). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
