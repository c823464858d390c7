import type { Command } from 'commander';
import { GatewayError } from '../core/gateway-error.ts';
import { listPayoutNotices, payoutNoticeLetter, type PayoutNoticeView } from '../calendar/payout-notices.job.ts';
import { printJson, throughGatewayOrStore, type GlobalOptions } from './gateway-or-store.ts';
import { table } from './output.ts';

/**
 * `depot-gateway payout-notices`: the notices that an insurance's payout can begin —
 * how the insured was told (mailed, or a letter in the print queue) and when customer
 * service was mailed the copy; `--unsent` for the copies not mailed yet, `--letters` for
 * the print queue. `payout-notices letter <insurance> > letter.pdf` writes an insured's
 * letter (a PDF) to stdout. Through the running gateway's staff API when one answers,
 * otherwise in-process.
 */
export function registerPayoutNoticesCommand(program: Command): void {
  const globals = () => program.opts<GlobalOptions>();
  const notices = program.command('payout-notices').description('insurances whose payout can begin: how the insured was told (mail or a letter to print) and when customer service got the copy');
  notices
    .command('list', { isDefault: true })
    .description('the notices, newest first')
    .option('--unsent', 'only notices whose copy to customer service is not mailed yet')
    .option('--letters', 'only the insured told by letter: the print queue')
    .option('--json', 'JSON lines instead of a table')
    .action((options: ListOptions) => runPayoutNoticesList(globals(), options));
  notices
    .command('letter')
    .argument('<insurance>', 'the insurance number, e.g. INS-100001')
    .description("the letter to the insured (a PDF) on stdout: payout-notices letter INS-100001 > letter.pdf")
    .action((insurance: string) => runPayoutNoticeLetter(globals(), insurance));
}

interface ListOptions {
  unsent?: boolean;
  letters?: boolean;
  json?: boolean;
}

async function runPayoutNoticesList(options: GlobalOptions, listing: ListOptions): Promise<void> {
  const query = { unsent: listing.unsent === true, letters: listing.letters === true };
  const params = new URLSearchParams({ ...(query.unsent ? { unsent: 'true' } : {}), ...(query.letters ? { letters: 'true' } : {}) });
  const rows = await throughGatewayOrStore(
    options,
    (gateway) => listPayoutNotices(gateway.deps.db, query),
    async (client) => (await client.request<{ notices: PayoutNoticeView[] }>(`/api/payout-notices?${params}`)).notices,
  );
  if (listing.json) {
    for (const row of rows) printJson(row);
    return;
  }
  const cells = rows.map((n) => [
    n.insuranceNumber, n.insuredName ?? n.insuredPin, n.accountNumber ?? '-', n.canBegin ?? '-', n.firstMonth ?? '-',
    n.firstAmount ? `${n.firstAmount} by ${n.payBy}` : '-', told(n), n.sentAt ? `${n.sentAt} to ${n.sentTo}` : 'not yet',
  ]);
  process.stdout.write(table([['INSURANCE', 'INSURED', 'CUSTODY ACCOUNT', 'CAN BEGIN', 'FIRST MONTH', 'FIRST PAYOUT', 'INSURED TOLD', 'COPY MAILED'], ...cells]));
}

/** How and when the insured was told. */
function told(notice: PayoutNoticeView): string {
  switch (notice.insuredNotice) {
    case 'mail':
      return `${notice.insuredToldAt} mailed to ${notice.insuredAddress}`;
    case 'letter':
      return `${notice.insuredToldAt} letter (payout-notices letter ${notice.insuranceNumber})`;
    case 'not-needed':
      return 'not needed (started or ended first)';
    case 'customer-service':
      return 'by customer service';
    case null:
      return 'not yet';
    default:
      return notice.insuredNotice satisfies never;
  }
}

async function runPayoutNoticeLetter(options: GlobalOptions, insurance: string): Promise<void> {
  const letter = await throughGatewayOrStore(
    options,
    (gateway) => payoutNoticeLetter(gateway.deps.db, insurance),
    (client) => client.download(`/api/payout-notices/${encodeURIComponent(insurance)}/letter`),
  );
  if (!letter) throw new GatewayError('RESOURCE_NOT_FOUND', `No letter to the insured of ${insurance}: its notice was mailed, not needed, or not made yet.`);
  process.stdout.write(letter);
}
