import {
  checkAccountOpenInYear,
  checkCostCategories,
  checkCostReportYear,
  normaliseCosts,
  type AccountCosts,
  type AccountPeriod,
} from '../../core/cost-and-charges.rules.ts';
import type { RuleRejection } from '../../core/plan-rules.ts';
import { findCustodianAccounts, upsertCustodyCosts, type AccountCostRow } from '../../ledger/custody/custody-costs.repository.ts';
import { recordAnnualReportArrival } from '../../ledger/custody/annual-report-deadlines.repository.ts';
import type { ApplyContext, ApplyOutcome, ItemOutcome, MessageType } from '../message-type.ts';
import { childOf, childrenOf, optionalTextOf, textOf, type XmlElement } from '../xml-element.ts';

/**
 * CostAndCharges: a custodian's yearly report (March–April) of each custody account's
 * costs in the previous year, split into InvestmentServices, ThirdPartyPayments and
 * InvestmentProductCost. A normal-size document, applied in one transaction like the
 * plan-administration types, and answered with one Item per account (ItemId = the
 * account number).
 *
 * Whole report rejected: CUSTODIAN_MISMATCH (the header names another custodian than
 * the sender), REPORT_YEAR_OUT_OF_RANGE (a year not yet ended, or too far back).
 * One account rejected, the others still applied: ACCOUNT_REPORTED_TWICE (the first
 * occurrence counts), CUSTODY_ACCOUNT_UNKNOWN (not held by the sender — another
 * custodian's account gets the same answer, so a report reveals nothing about
 * accounts it does not hold — or not open in the year), COST_CATEGORIES_MISMATCH
 * (the categories do not sum to TotalCosts − Refund; the text gives the difference).
 *
 * Accepted accounts are written in one statement; a re-sent report for the same
 * account and year replaces that account's row. Reports of one custodian are applied
 * in arrival order (ordering key `custodian:<organisation number>`), so the later of
 * two re-sends wins. A report with an accepted account counts as the custodian's
 * report of its year against the 30 April deadline (the earliest such one decides).
 */
export interface CustodianReportHeader {
  readonly messageId: string;
  readonly createdAt: string;
  readonly custodianOrganisationNumber: string;
}

export interface CostAndChargesAccount extends AccountCosts {
  readonly accountNumber: string;
}

export interface CostAndChargesDocument {
  readonly header: CustodianReportHeader;
  readonly year: number;
  readonly accounts: readonly CostAndChargesAccount[];
}

export const costAndCharges: MessageType<CostAndChargesDocument> = {
  name: 'CostAndCharges',
  responseName: 'CostAndChargesResponse',
  family: 'custodian-reporting',
  read: (root) => ({
    header: readCustodianReportHeader(root),
    year: Number(textOf(root, 'Year')),
    accounts: childrenOf(root, 'Account').map(readAccount),
  }),
  senderMessageId: (doc) => doc.header.messageId,
  orderingKey: (doc) => `custodian:${doc.header.custodianOrganisationNumber}`,
  apply: applyCostAndCharges,
};

function readCustodianReportHeader(root: XmlElement): CustodianReportHeader {
  const header = childOf(root, 'Header');
  if (!header) throw new Error(`<${root.name}> has no <Header>`);
  return {
    messageId: textOf(header, 'MessageId'),
    createdAt: textOf(header, 'CreatedAt'),
    custodianOrganisationNumber: textOf(header, 'CustodianOrganisationNumber'),
  };
}

function readAccount(account: XmlElement): CostAndChargesAccount {
  const refund = optionalTextOf(account, 'Refund');
  return {
    accountNumber: textOf(account, 'AccountNumber'),
    investmentServices: textOf(account, 'InvestmentServices'),
    thirdPartyPayments: textOf(account, 'ThirdPartyPayments'),
    investmentProductCost: textOf(account, 'InvestmentProductCost'),
    ...(refund === undefined ? {} : { refund }),
    totalCosts: textOf(account, 'TotalCosts'),
  };
}

async function applyCostAndCharges(context: ApplyContext, doc: CostAndChargesDocument): Promise<ApplyOutcome> {
  const { custodianOrganisationNumber } = doc.header;
  const { counterpartyId, organisationNumber } = context.sender;
  if (custodianOrganisationNumber !== organisationNumber) {
    return rejectReport({
      code: 'CUSTODIAN_MISMATCH',
      text: `The report names custodian ${custodianOrganisationNumber}, but it was sent by ${counterpartyId} (${organisationNumber}); a custodian reports only its own accounts.`,
    });
  }
  const yearRejection = checkCostReportYear(doc.year, context.today);
  if (yearRejection) return rejectReport(yearRejection);

  const held = await findCustodianAccounts(context.tx, counterpartyId, doc.accounts.map((a) => a.accountNumber));
  const seen = new Set<string>();
  const items: ItemOutcome[] = [];
  const accepted: AccountCostRow[] = [];
  for (const account of doc.accounts) {
    const rejection = decideAccount(account, doc.year, held, seen);
    if (rejection) {
      items.push({ itemId: account.accountNumber, status: 'Rejected', code: rejection.code, text: rejection.text });
    } else {
      accepted.push({ accountNumber: account.accountNumber, ...normaliseCosts(account) });
      items.push({ itemId: account.accountNumber, status: 'Accepted' });
    }
  }
  await upsertCustodyCosts(context.tx, context.messageId, doc.year, accepted);
  if (accepted.length > 0) {
    const { receivedAt } = await context.openDocument();
    await recordAnnualReportArrival(context.tx, { custodianId: counterpartyId, kind: 'CostAndCharges', year: doc.year, receivedAt, messageId: context.messageId });
  }
  return { items, errors: [] };
}

/** Why one account is rejected, or undefined when its costs are taken. */
function decideAccount(account: CostAndChargesAccount, year: number, held: ReadonlyMap<string, AccountPeriod>, seen: Set<string>): RuleRejection | undefined {
  const { accountNumber } = account;
  if (seen.has(accountNumber)) {
    return { code: 'ACCOUNT_REPORTED_TWICE', text: `Custody account ${accountNumber} is reported by an earlier account of this report; only the first is taken.` };
  }
  seen.add(accountNumber);
  const period = held.get(accountNumber);
  if (!period) {
    return { code: 'CUSTODY_ACCOUNT_UNKNOWN', text: `Custody account ${accountNumber} is not one you hold for the insurer; check the account number.` };
  }
  return checkAccountOpenInYear(accountNumber, period, year) ?? checkCostCategories(account);
}

function rejectReport(rejection: RuleRejection): ApplyOutcome {
  return { items: [], errors: [{ code: rejection.code, text: rejection.text }] };
}
