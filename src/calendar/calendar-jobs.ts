import type { CalendarJob } from './calendar.scheduler.ts';
import { reportDeadlineJob, type DeadlineCheckDeps } from './report-deadlines.job.ts';
import { debitRunJob, type RunDeps } from './debit-run.ts';
import { payoutRunJob } from './payout-run.ts';
import { payoutNoticeJob } from './payout-notices.job.ts';
import { applicationNoticeJob } from './application-notices.job.ts';
import { applicationExpiryJob } from './application-expiry.job.ts';
import { payoutStartJob } from './payout-start.job.ts';
import { custodianSwitchJob } from './custodian-switches.job.ts';
import { commissionPaymentJob } from './commission-payments.job.ts';
import { withdrawalAccountValidationJob } from './withdrawal-account-validation.job.ts';
import type { AccountOwnershipCheck } from './account-ownership.ts';
import { invoiceSpecificationJob, type InvoiceSpecificationDeps } from './invoice-specification.job.ts';
import { messageRetentionJob, type MessageRetentionDeps } from './message-retention.job.ts';

/**
 * The registry of calendar jobs the `worker` role schedules. A new kind of calendar
 * work (debit runs, sell orders, payouts) is a module exporting a CalendarJob factory
 * and one entry here; its dependencies join `CalendarJobDeps`.
 */
export type CalendarJobDeps = DeadlineCheckDeps & {
  /** The debit and payout runs' dependencies; without them those jobs are not scheduled. */
  readonly runs?: RunDeps;
  /** Where notices that payout can begin are mailed (with the payout runs); default the operations address. */
  readonly customerServiceAddress?: string | undefined;
  /** Where registered withdrawal accounts are checked against their policyholders; without it the 13:00 validation is not scheduled. */
  readonly accountOwnership?: AccountOwnershipCheck;
  /** Banking days without a step after which an open custodian switch is flagged (with the runs). */
  readonly custodianSwitchStallBankingDays?: number;
  /** The nightly move of old documents' bytes to the archive; without it the job is not scheduled. */
  readonly retention?: MessageRetentionDeps;
  /** The monthly invoice specifications' dependencies; without them the job is not scheduled. */
  readonly invoiceSpecifications?: InvoiceSpecificationDeps;
};

export function calendarJobs(deps: CalendarJobDeps): CalendarJob[] {
  const payoutNotices = { mailSender: deps.mailSender, address: deps.customerServiceAddress ?? deps.operationsAddress, log: deps.log };
  return [
    reportDeadlineJob(deps),
    applicationNoticeJob({ mailSender: deps.mailSender, log: deps.log }),
    applicationExpiryJob({ log: deps.log }),
    ...(deps.runs ? [debitRunJob(deps.runs), payoutRunJob(deps.runs), payoutNoticeJob(payoutNotices)] : []),
    ...(deps.runs ? [payoutStartJob({ log: deps.log })] : []),
    ...(deps.runs ? [custodianSwitchJob({ runs: deps.runs, mailSender: deps.mailSender, operationsAddress: deps.operationsAddress, stallBankingDays: deps.custodianSwitchStallBankingDays ?? 10, log: deps.log })] : []),
    ...(deps.runs ? [commissionPaymentJob({ ...deps.runs, advisorFirms: deps.runs.advisorFirms ?? new Map() })] : []),
    ...(deps.accountOwnership ? [withdrawalAccountValidationJob({ ownership: deps.accountOwnership, log: deps.log })] : []),
    ...(deps.invoiceSpecifications ? [invoiceSpecificationJob(deps.invoiceSpecifications)] : []),
    ...(deps.retention ? [messageRetentionJob(deps.retention)] : []),
  ];
}
