import type { Command } from 'commander';
import { listApplicationNotices, type ApplicationNoticeView } from '../ledger/advice/application-notices.repository.ts';
import { noticeLimit } from '../http/staff/application-notices.routes.ts';
import { printJson, throughGatewayOrStore, type GlobalOptions } from './gateway-or-store.ts';
import { table } from './output.ts';

/**
 * `depot-gateway application-notices`: the notices that an application went to manual
 * review — to the advisor, and to the policyholder or the employer's contact — newest
 * first, each with its address and when it was mailed; `--unsent` for those not mailed
 * (waiting for mail, without an address, or of an application decided first). Through
 * the running gateway's staff API when one answers, otherwise in-process.
 */
export function registerApplicationNoticesCommand(program: Command): void {
  program
    .command('application-notices')
    .description('notices that an application went to manual review: to the advisor and to the policyholder or employer, and when each was mailed')
    .option('--unsent', 'only notices not mailed (waiting, without an address, or of an application decided first)')
    .option('--limit <n>', 'at most this many, newest first, 1–1000', '100')
    .option('--json', 'JSON lines instead of a table')
    .action((options: NoticeOptions) => runApplicationNotices(program.opts<GlobalOptions>(), options));
}

interface NoticeOptions {
  unsent?: boolean;
  limit: string;
  json?: boolean;
}

async function runApplicationNotices(options: GlobalOptions, listing: NoticeOptions): Promise<void> {
  const query = { unsent: listing.unsent === true, limit: noticeLimit(listing.limit) };
  const params = new URLSearchParams({ ...(query.unsent ? { unsent: 'true' } : {}), limit: String(query.limit) });
  const notices = await throughGatewayOrStore(
    options,
    (gateway) => listApplicationNotices(gateway.deps.db, query),
    async (client) => (await client.request<{ notices: ApplicationNoticeView[] }>(`/api/application-notices?${params}`)).notices,
  );
  if (listing.json) {
    for (const notice of notices) printJson(notice);
    return;
  }
  const cells = notices.map((n) => [n.applicationId, n.applicationStatus, n.recipient, n.address ?? '(no address)', n.recordedAt, mailed(n)]);
  process.stdout.write(table([['APPLICATION', 'STATUS', 'RECIPIENT', 'ADDRESS', 'RECORDED', 'MAILED'], ...cells]));
}

/** When it was mailed, or why not yet. */
function mailed(notice: ApplicationNoticeView): string {
  if (notice.sentAt) return notice.sentAt;
  if (!notice.address) return 'never (no address)';
  if (notice.applicationStatus !== 'under-review') return 'never (decided first)';
  return notice.failedAttempts > 0 ? `not yet: ${notice.failedAttempts} failed, last: ${notice.lastError}` : 'not yet';
}
