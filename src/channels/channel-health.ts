/**
 * Whether each counterparty's own server (remote SFTP) and the gateway's mailbox can be
 * reached, as the `watch` role last found. A counterparty's server being down does not
 * make the gateway unready — `/readyz` is about the gateway's own dependencies, and a
 * load balancer must not take the API away because one custodian's SFTP refuses — so
 * it is reported to staff instead: GET /api/channels and `depot-gateway channels`.
 *
 * The watcher reports after every attempt; the ledger is written when the state changes
 * and otherwise at most once a minute (so staff can tell a watcher that stopped
 * reporting: its `checkedAt` grows old).
 */
import type { ChannelHealthReport, ChannelState } from '../ledger/messages/channel-health.repository.ts';

export interface ChannelHealth {
  report(report: ChannelHealthReport): void;
}

/** Writes a report to the ledger; failures are the caller's to log. */
export type ChannelHealthStore = (report: ChannelHealthReport, at: Date) => Promise<void>;

const REFRESH_MS = 60_000;

/** Remembers the last state per subject and writes a change at once, a repeat once a minute. */
export class RecordedChannelHealth implements ChannelHealth {
  readonly #last = new Map<string, { state: ChannelState; detail: string | undefined; writtenAt: number }>();

  constructor(
    private readonly store: ChannelHealthStore,
    private readonly onError: (error: unknown) => void,
    private readonly now: () => Date = () => new Date(),
  ) {}

  report(report: ChannelHealthReport): void {
    const key = `${report.channel}:${report.subject}`;
    const at = this.now();
    const last = this.#last.get(key);
    const changed = !last || last.state !== report.state || last.detail !== report.detail;
    if (!changed && at.getTime() - last.writtenAt < REFRESH_MS) return;
    this.#last.set(key, { state: report.state, detail: report.detail, writtenAt: at.getTime() });
    this.store(report, at).catch(this.onError);
  }
}

/**
 * The same health, telling `onDown` of every failed attempt as well — each one, not
 * only a change of state: the metrics count connection failures by channel.
 */
export function observingFailures(health: ChannelHealth, onDown: (report: ChannelHealthReport) => void): ChannelHealth {
  return {
    report(report) {
      if (report.state === 'down') onDown(report);
      health.report(report);
    },
  };
}
