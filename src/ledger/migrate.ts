import type { Database } from './database.ts';
import * as messageStore from './migrations/0001-message-store.ts';
import * as planLedger from './migrations/0002-plan-ledger.ts';
import * as planHistory from './migrations/0003-plan-history.ts';
import * as custodyLedger from './migrations/0004-custody-ledger.ts';
import * as remoteSftp from './migrations/0005-remote-sftp.ts';
import * as mailbox from './migrations/0006-mailbox.ts';
import * as ssek from './migrations/0007-ssek.ts';
import * as reportDeadlines from './migrations/0008-report-deadlines.ts';
import * as debitRuns from './migrations/0009-debit-runs.ts';
import * as lighterMessageRows from './migrations/0010-lighter-message-rows.ts';
import * as inboxFiles from './migrations/0011-inbox-files.ts';
import * as advisorApi from './migrations/0012-advisor-api.ts';
import * as headerMessageIds from './migrations/0013-header-message-ids.ts';
import * as applications from './migrations/0014-applications.ts';
import * as mailAuthentication from './migrations/0015-mail-authentication.ts';
import * as outgoingDeliveries from './migrations/0016-outgoing-deliveries.ts';
import * as planApplications from './migrations/0017-plan-applications.ts';
import * as applicationNotices from './migrations/0018-application-notices.ts';
import * as insuranceEnd from './migrations/0019-insurance-end.ts';
import * as malformedClaimsNothing from './migrations/0020-malformed-claims-nothing.ts';
import * as channelHealth from './migrations/0021-channel-health.ts';
import * as annualReportDeadlines from './migrations/0022-annual-report-deadlines.ts';
import * as withdrawalAccounts from './migrations/0025-withdrawal-accounts.ts';
import * as insuranceCoverages from './migrations/0023-insurance-coverages.ts';
import * as payoutStart from './migrations/0024-payout-start.ts';
import * as staffConsole from './migrations/0026-staff-console.ts';
import * as withdrawalRequests from './migrations/0027-withdrawal-requests.ts';
import * as deathBenefits from './migrations/0029-death-benefits.ts';
import * as companySignatories from './migrations/0028-company-signatories.ts';
import * as ledgerRowsByMessage from './migrations/0030-ledger-rows-by-message.ts';
import * as customerAccessLookups from './migrations/0031-customer-access-lookups.ts';
import * as signCasesForAnyRequest from './migrations/0032-sign-cases-for-any-request.ts';
import * as deathBenefitBeneficiaries from './migrations/0033-death-benefit-beneficiaries.ts';
import * as payoutRequests from './migrations/0034-payout-requests.ts';
import * as heldYieldTaxes from './migrations/0035-held-yield-taxes.ts';
import * as paymentOrders from './migrations/0037-payment-orders.ts';
import * as ssekMessagesByTxId from './migrations/0038-ssek-messages-by-tx-id.ts';
import * as signLinks from './migrations/0039-sign-links.ts';
import * as mailMessagesByExternalId from './migrations/0040-mail-messages-by-external-id.ts';
import * as applicationSigning from './migrations/0041-application-signing.ts';
import * as custodiansFirstSeen from './migrations/0042-custodians-first-seen.ts';
import * as directQueries from './migrations/0043-direct-queries.ts';
import * as commission from './migrations/0044-commission.ts';
import * as invoiceSpecifications from './migrations/0045-invoice-specifications.ts';
import * as transferLeaflets from './migrations/0046-transfer-leaflets.ts';
import * as custodianSwitches from './migrations/0047-custodian-switches.ts';
import * as messageRetention from './migrations/0048-message-retention.ts';
import * as archivedResponsesAndMasking from './migrations/0049-archived-responses-and-masking.ts';
import * as documentKeysWithoutForeignKey from './migrations/0050-document-keys-without-foreign-key.ts';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Every migration, one a line. A new migration is a new file, its import and its line here. */
export const MIGRATIONS: readonly Migration[] = [
  messageStore,
  planLedger,
  planHistory,
  custodyLedger,
  remoteSftp,
  mailbox,
  ssek,
  reportDeadlines,
  debitRuns,
  lighterMessageRows,
  inboxFiles,
  advisorApi,
  headerMessageIds,
  applications,
  mailAuthentication,
  outgoingDeliveries,
  planApplications,
  applicationNotices,
  insuranceEnd,
  malformedClaimsNothing,
  channelHealth,
  annualReportDeadlines,
  insuranceCoverages,
  withdrawalAccounts,
  payoutStart,
  staffConsole,
  withdrawalRequests,
  deathBenefits,
  companySignatories,
  ledgerRowsByMessage,
  customerAccessLookups,
  signCasesForAnyRequest,
  deathBenefitBeneficiaries,
  payoutRequests,
  heldYieldTaxes,
  paymentOrders,
  ssekMessagesByTxId,
  signLinks,
  mailMessagesByExternalId,
  applicationSigning,
  custodiansFirstSeen,
  directQueries,
  commission,
  invoiceSpecifications,
  transferLeaflets,
  custodianSwitches,
  messageRetention,
  archivedResponsesAndMasking,
  documentKeysWithoutForeignKey,
];

/** Any fixed number: the advisory lock that lets only one process migrate at a time. */
const MIGRATION_LOCK = 4_711_001;

/**
 * Brings the database to the newest schema version, each migration in its own
 * transaction. Safe to run from several processes at once. Returns the versions applied.
 */
export async function migrate(db: Database): Promise<number[]> {
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    const { rows } = await tx.query<{ version: number }>('SELECT version FROM schema_migrations');
    const done = new Set(rows.map((row) => row.version));
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (done.has(migration.version)) continue;
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
      applied.push(migration.version);
    }
    return applied;
  });
}
