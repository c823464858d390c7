import type { Sql } from '../database.ts';

/** Whether a channel could be reached when its watcher last tried (channels/channel-health.ts reports it). */
export type ChannelState = 'up' | 'down';

export interface ChannelHealthReport {
  /** A counterparty id, or `mailbox` for the gateway's own mailbox. */
  readonly subject: string;
  readonly channel: 'sftp' | 'mail';
  readonly state: ChannelState;
  /** Why it is down (the error as the library gave it); undefined when up. */
  readonly detail?: string | undefined;
}


/** A channel's last reported state, as staff see it. */
export interface ChannelHealthView {
  readonly subject: string;
  readonly channel: 'sftp' | 'mail';
  /** `unknown` when the watcher has not reported for STALE_AFTER_MS (stopped, or not running). */
  readonly state: ChannelState | 'unknown';
  readonly detail: string | null;
  /** When it last changed state. */
  readonly since: string;
  readonly checkedAt: string;
}

/** A watcher reports at least once a minute while it runs; five minutes without is unknown. */
export const STALE_AFTER_MS = 5 * 60_000;

export async function recordChannelHealth(db: Sql, report: ChannelHealthReport, at: Date): Promise<void> {
  await db.query(
    `INSERT INTO channel_health (subject, channel, state, detail, since, checked_at) VALUES ($1, $2, $3, $4, $5, $5)
     ON CONFLICT (subject, channel) DO UPDATE SET
       since = CASE WHEN channel_health.state = EXCLUDED.state THEN channel_health.since ELSE EXCLUDED.since END,
       state = EXCLUDED.state, detail = EXCLUDED.detail, checked_at = EXCLUDED.checked_at`,
    [report.subject, report.channel, report.state, report.detail ?? null, at.toISOString()],
  );
}

export async function listChannelHealth(db: Sql, now: Date): Promise<ChannelHealthView[]> {
  const { rows } = await db.query<{ subject: string; channel: 'sftp' | 'mail'; state: ChannelState; detail: string | null; since: Date | string; checked_at: Date | string }>(
    'SELECT subject, channel, state, detail, since, checked_at FROM channel_health ORDER BY channel, subject',
  );
  return rows.map((row) => {
    const checkedAt = new Date(row.checked_at);
    return {
      subject: row.subject, channel: row.channel, detail: row.detail,
      state: now.getTime() - checkedAt.getTime() > STALE_AFTER_MS ? 'unknown' : row.state,
      since: new Date(row.since).toISOString(), checkedAt: checkedAt.toISOString(),
    };
  });
}
