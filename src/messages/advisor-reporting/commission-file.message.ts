import {
  checkCommissionPeriod, checkWithinCap, monthsOf, overlappingPeriod, type CommissionFee,
} from '../../core/commission.rules.ts';
import { isValidOrganisationNumber } from '../../core/identifiers.ts';
import type { RuleRejection } from '../../core/plan-rules.ts';
import {
  commissionFacts, insertCommissionLines, isAdvisorFirm, type CommissionInsuranceFacts, type NewCommissionLine,
} from '../../ledger/custody/commission.repository.ts';
import type { ApplyContext, ApplyOutcome, ItemOutcome, MessageType } from '../message-type.ts';
import { childOf, childrenOf, optionalTextOf, textOf, type XmlElement } from '../xml-element.ts';

/**
 * CommissionFile: an advisor firm reports the fees it takes from insurances it
 * intermediates, each for a period of whole months, as an amount or a percentage of the
 * custody value (docs/commission.md). Each item is decided on its own and answered in
 * CommissionFileResponse; an accepted one becomes a commission line, which the next debit
 * run debits as an AdvisorFee (src/calendar/debit-run.ts) and the monthly commission
 * payment pays to the firm (src/calendar/commission-payments.job.ts).
 *
 * Whole file rejected: ORGANISATION_NUMBER_INVALID, ADVISOR_FIRM_UNKNOWN (the header's
 * firm is not the sender, or not a firm the insurer knows).
 * One item rejected, nothing of it written: DUPLICATE_ITEM, INSURANCE_UNKNOWN,
 * COMMISSION_PERIOD_INVALID, INSURANCE_ENDED, COMMISSION_POWER_MISSING,
 * COMMISSION_ABOVE_CAP, COMMISSION_PERIOD_ALREADY_CHARGED — checked in that order.
 *
 * Invariants: the accepted items are written in one statement in the apply transaction,
 * so a file is applied whole or not at all, and its rejected items leave no row; every
 * commission file is applied in arrival order, one at a time (one ordering key for all
 * firms: two firms may report the same insurance), and no two lines of an insurance
 * share a day (the handler checks it against the ledger and the file's earlier items;
 * the table's key on the period's first day is the backstop).
 */
export interface CommissionFileItem {
  readonly itemId: string;
  readonly insuranceNumber: string;
  readonly periodFrom: string;
  readonly periodTo: string;
  readonly fee: CommissionFee;
}

export interface CommissionFileDocument {
  readonly header: { readonly messageId: string; readonly createdAt: string; readonly firmOrganisationNumber: string };
  readonly items: readonly CommissionFileItem[];
}

export const COMMISSION_FILE = 'CommissionFile';

export const commissionFile: MessageType<CommissionFileDocument> = {
  name: COMMISSION_FILE,
  responseName: 'CommissionFileResponse',
  family: 'advisor-reporting',
  read: (root) => ({ header: readHeader(root), items: childrenOf(root, 'Item').map(readItem) }),
  senderMessageId: (doc) => doc.header.messageId,
  orderingKey: () => 'commission-files',
  apply: applyCommissionFile,
};

function readHeader(root: XmlElement): CommissionFileDocument['header'] {
  const header = childOf(root, 'Header');
  if (!header) throw new Error(`<${root.name}> has no <Header>`);
  return { messageId: textOf(header, 'MessageId'), createdAt: textOf(header, 'CreatedAt'), firmOrganisationNumber: textOf(header, 'AdvisorFirmOrganisationNumber') };
}

function readItem(item: XmlElement): CommissionFileItem {
  const amount = optionalTextOf(item, 'Amount');
  return {
    itemId: textOf(item, 'ItemId'), insuranceNumber: textOf(item, 'InsuranceNumber'),
    periodFrom: textOf(item, 'PeriodFrom'), periodTo: textOf(item, 'PeriodTo'),
    fee: amount !== undefined ? { kind: 'Amount', value: amount } : { kind: 'Percent', value: textOf(item, 'Percent') },
  };
}

async function applyCommissionFile(context: ApplyContext, doc: CommissionFileDocument): Promise<ApplyOutcome> {
  const firm = doc.header.firmOrganisationNumber;
  if (!isValidOrganisationNumber(firm)) {
    return reject('ORGANISATION_NUMBER_INVALID', `AdvisorFirmOrganisationNumber ${firm} is not an organisation number: its check digit (or its group digit) is wrong.`);
  }
  if (firm !== context.sender.organisationNumber) {
    return reject('ADVISOR_FIRM_UNKNOWN', `The file reports for advisor firm ${firm}, but its sender ${context.sender.counterpartyId} is ${context.sender.organisationNumber}.`);
  }
  if (!(await isAdvisorFirm(context.tx, firm))) return reject('ADVISOR_FIRM_UNKNOWN', `${firm} is not an advisor firm the insurer knows.`);
  const facts = await commissionFacts(context.tx, firm, [...new Set(doc.items.map((item) => item.insuranceNumber))]);
  const seen = new Set<string>();
  const items: ItemOutcome[] = [];
  const accepted: NewCommissionLine[] = [];
  for (const item of doc.items) {
    const decision = seen.has(item.itemId)
      ? { reject: { code: 'DUPLICATE_ITEM', text: `Item id ${item.itemId} is used by an earlier item of this document.` } as RuleRejection }
      : decide(item, facts.get(item.insuranceNumber), context.messageId);
    seen.add(item.itemId);
    if ('reject' in decision) {
      items.push({ itemId: item.itemId, status: 'Rejected', code: decision.reject.code, text: decision.reject.text });
    } else {
      accepted.push({ ...decision.accept, firmOrganisationNumber: firm });
      items.push({ itemId: item.itemId, status: 'Accepted' });
    }
  }
  const ids = await insertCommissionLines(context.tx, context.messageId, accepted);
  return { items: items.map((item) => (ids.has(item.itemId) && item.status === 'Accepted' ? { ...item, reference: `CL-${ids.get(item.itemId)}` } : item)), errors: [] };
}

type Decision = { readonly accept: Omit<NewCommissionLine, 'firmOrganisationNumber'> } | { readonly reject: RuleRejection };

/** Decides one item against its insurance's facts; an accepted one is added to the facts' charged periods, so a later item of the file sees it. */
function decide(item: CommissionFileItem, insurance: CommissionInsuranceFacts | undefined, messageId: string): Decision {
  if (!insurance) return { reject: { code: 'INSURANCE_UNKNOWN', text: `Insurance ${item.insuranceNumber} is not known.` } };
  const period = { periodFrom: item.periodFrom, periodTo: item.periodTo };
  const invalid = checkCommissionPeriod(period, insurance.startDate);
  if (invalid) return { reject: invalid };
  if (insurance.endDate !== null && insurance.endDate < item.periodTo) {
    return { reject: { code: 'INSURANCE_ENDED', text: `Insurance ${item.insuranceNumber} ended on ${insurance.endDate}, before the period's end ${item.periodTo}.` } };
  }
  const power = insurance.powers.find((p) => p.validFrom <= item.periodFrom && (p.validTo === null || p.validTo >= item.periodTo));
  if (!power || insurance.policyholder === null) {
    return {
      reject: {
        code: 'COMMISSION_POWER_MISSING',
        text: `The firm holds no intermediation power of attorney on policyholder ${insurance.policyholder ?? '(none recorded)'} of ${item.insuranceNumber} valid from ${item.periodFrom} through ${item.periodTo}.`,
      },
    };
  }
  const aboveCap = checkWithinCap(item.fee, insurance.cap, monthsOf(period) ?? 12, insurance.productCode);
  if (aboveCap) return { reject: aboveCap };
  const charged = overlappingPeriod(period, insurance.charged);
  if (charged) {
    const other = insurance.charged.find((c) => c.periodFrom === charged.periodFrom)!;
    return {
      reject: {
        code: 'COMMISSION_PERIOD_ALREADY_CHARGED',
        text: `Insurance ${item.insuranceNumber} is already charged for ${charged.periodFrom}–${charged.periodTo}${other.messageId === messageId ? ` by item ${other.itemId} of this file` : ''}.`,
      },
    };
  }
  insurance.charged.push({ ...period, messageId, itemId: item.itemId });
  return { accept: { itemId: item.itemId, insuranceNumber: item.insuranceNumber, ...period, fee: item.fee, powerOfAttorneyId: power.id } };
}

function reject(code: 'ORGANISATION_NUMBER_INVALID' | 'ADVISOR_FIRM_UNKNOWN', text: string): ApplyOutcome {
  return { items: [], errors: [{ code, text }] };
}
