import type { Logger } from 'pino';
import { EXIT } from './output.ts';

/**
 * How a running gateway stops on SIGTERM or SIGINT: it closes (HTTP and watchers
 * first, then active jobs finish, then Redis and the database) and exits 0. A service
 * manager waits about 10 s before it kills (Docker's default; systemd's is longer), and
 * a kill leaves the embedded database without its close, so the gateway sets itself a
 * deadline below that: if closing has not finished by then — Redis hung, a job that
 * does not end — it says so and exits 2. What it left is taken up after the restart
 * (expired job locks, the reconciler).
 *
 * The handlers are installed before the gateway has opened: its workers take jobs while
 * the rest of it is still starting, and a signal then waits for the opening to finish
 * and closes what opened, instead of killing the process mid-job.
 */
export const STOP_DEADLINE_MS = 9_000;

export function stopOnSignals(opening: Promise<{ close(): Promise<void> }>, log: Logger, deadlineMs = STOP_DEADLINE_MS): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping: finishing active jobs');
    const started = Date.now();
    const deadline = setTimeout(() => {
      log.fatal({ signal, deadlineMs }, 'stopping took too long (Redis or a job did not finish); exiting without finishing');
      process.exit(EXIT.usage);
    }, deadlineMs);
    opening.then((gateway) => gateway.close()).then(
      () => {
        clearTimeout(deadline);
        log.info({ signal, ms: Date.now() - started }, 'stopped');
        process.exit(EXIT.ok);
      },
      (error: unknown) => {
        log.error({ err: error }, 'stopping failed');
        process.exit(EXIT.usage);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
