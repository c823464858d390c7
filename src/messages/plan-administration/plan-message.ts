import { type ERROR_CODES } from '../../core/error-codes.ts';
import { isValidPersonalIdentityNumber } from '../../core/identifiers.ts';
import type { RuleRejection } from '../../core/plan-rules.ts';
import { findAgreement, type AgreementFacts } from '../../ledger/plan.repository.ts';
import type { ApplyContext, ApplyOutcome, ItemOutcome, MessageType } from '../message-type.ts';
import { childOf, childrenOf, textOf, type XmlElement } from '../xml-element.ts';

/**
 * The shape every plan-administration request shares: a header naming the agreement
 * and employer, then items about insured persons, each answered on its own. This
 * module does the shared part once — reading the header, checking that the agreement
 * exists and that the sender may act for it, refusing repeated item ids and bad
 * personal identity numbers — so a message type only says how to read and apply
 * one item.
 */
export interface PlanHeader {
  readonly messageId: string;
  readonly createdAt: string;
  readonly agreementNumber: string;
  readonly employerOrganisationNumber: string;
}

export interface PlanItem {
  readonly itemId: string;
  readonly personalIdentityNumber: string;
}

export interface PlanDocument<Item extends PlanItem> {
  readonly header: PlanHeader;
  readonly items: readonly Item[];
}

export interface PlanItemContext extends ApplyContext {
  readonly agreement: AgreementFacts;
}

export interface PlanMessageSpec<Item extends PlanItem> {
  readonly name: string;
  /** Default `${name}Response`. */
  readonly responseName?: string;
  readonly readItem: (item: XmlElement) => Item;
  /** Applies one item or says why not; writes nothing when it rejects. */
  readonly applyItem: (context: PlanItemContext, item: Item) => Promise<RuleRejection | undefined>;
}

export function definePlanMessage<Item extends PlanItem>(spec: PlanMessageSpec<Item>): MessageType<PlanDocument<Item>> {
  return {
    name: spec.name,
    responseName: spec.responseName ?? `${spec.name}Response`,
    family: 'plan-administration',
    read: (root) => ({ header: readHeader(root), items: childrenOf(root, 'Item').map(spec.readItem) }),
    senderMessageId: (doc) => doc.header.messageId,
    orderingKey: (doc) => `agreement:${doc.header.agreementNumber}`,
    apply: (context, doc) => applyPlanDocument(context, doc, spec.applyItem),
  };
}

function readHeader(root: XmlElement): PlanHeader {
  const header = childOf(root, 'Header');
  if (!header) throw new Error(`<${root.name}> has no <Header>`);
  return {
    messageId: textOf(header, 'MessageId'),
    createdAt: textOf(header, 'CreatedAt'),
    agreementNumber: textOf(header, 'AgreementNumber'),
    employerOrganisationNumber: textOf(header, 'EmployerOrganisationNumber'),
  };
}

async function applyPlanDocument<Item extends PlanItem>(
  context: ApplyContext,
  doc: PlanDocument<Item>,
  applyItem: PlanMessageSpec<Item>['applyItem'],
): Promise<ApplyOutcome> {
  const { agreementNumber, employerOrganisationNumber } = doc.header;
  const agreement = await findAgreement(context.tx, agreementNumber);
  if (!agreement) {
    return rejectDocument('AGREEMENT_UNKNOWN', `Agreement ${agreementNumber} is not known.`);
  }
  if (agreement.employerOrganisationNumber !== employerOrganisationNumber) {
    return rejectDocument(
      'EMPLOYER_MISMATCH',
      `Agreement ${agreementNumber} belongs to employer ${agreement.employerOrganisationNumber}, not ${employerOrganisationNumber}.`,
    );
  }
  const sender = context.sender.organisationNumber;
  if (sender !== agreement.employerOrganisationNumber && !agreement.administrators.includes(sender)) {
    return rejectDocument(
      'SENDER_NOT_AUTHORISED',
      `Sender ${context.sender.counterpartyId} (${sender}) is neither the employer nor an administrator of agreement ${agreementNumber}.`,
    );
  }
  const itemContext: PlanItemContext = { ...context, agreement };
  const seen = new Set<string>();
  const items: ItemOutcome[] = [];
  for (const item of doc.items) {
    items.push(await applyOneItem(itemContext, item, seen, applyItem));
  }
  return { items, errors: [] };
}

async function applyOneItem<Item extends PlanItem>(
  context: PlanItemContext,
  item: Item,
  seen: Set<string>,
  applyItem: PlanMessageSpec<Item>['applyItem'],
): Promise<ItemOutcome> {
  if (seen.has(item.itemId)) {
    return rejected(item.itemId, { code: 'DUPLICATE_ITEM', text: `Item id ${item.itemId} is used by an earlier item of this document.` });
  }
  seen.add(item.itemId);
  if (!isValidPersonalIdentityNumber(item.personalIdentityNumber)) {
    return rejected(item.itemId, {
      code: 'PERSONAL_IDENTITY_NUMBER_INVALID',
      text: `${item.personalIdentityNumber} is not a valid personal identity number (date or check digit).`,
    });
  }
  const rejection = await applyItem(context, item);
  return rejection ? rejected(item.itemId, rejection) : { itemId: item.itemId, status: 'Accepted' };
}

function rejected(itemId: string, rejection: RuleRejection): ItemOutcome {
  return { itemId, status: 'Rejected', code: rejection.code, text: rejection.text };
}

function rejectDocument(code: keyof typeof ERROR_CODES, text: string): ApplyOutcome {
  return { items: [], errors: [{ code, text }] };
}
