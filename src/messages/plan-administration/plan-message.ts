import type { ERROR_CODES } from '../../core/error-codes.ts';
import { isValidOrganisationNumber, isValidPersonalIdentityNumber } from '../../core/identifiers.ts';
import type { RuleRejection } from '../../core/plan-rules.ts';
import { findAgreement, type AgreementFacts } from '../../ledger/plan/plan.repository.ts';
import type { ApplyContext, ApplyOutcome, ItemOutcome, MessageType } from '../message-type.ts';
import { childOf, childrenOf, textOf, type XmlElement } from '../xml-element.ts';

/**
 * The shape every plan-administration request shares: a header naming the agreement
 * and employer, then items about insured persons, each answered on its own. This
 * module does the shared part once — reading the header, checking that the agreement
 * exists and that the sender may act for it, refusing repeated item ids and bad
 * personal identity numbers — so a message type only says how to read an item, which
 * ledger facts its items need, how to decide one item, and how to write the accepted
 * ones.
 *
 * Set-based on purpose: the facts for the whole document are loaded in one go and
 * the accepted items written in one statement per table, so a salary file of 10,000
 * employees costs a handful of queries, not 20,000. `decide` updates the facts with
 * its own effect, so a later item of the same document sees an earlier one.
 */
export interface PlanHeader {
  readonly messageId: string;
  readonly createdAt: string;
  readonly agreementNumber: string;
  readonly employerOrganisationNumber: string;
}

export interface PlanItem {
  readonly itemId: string;
  /** The person the item is about; absent for items about the agreement itself (AddCategories). */
  readonly personalIdentityNumber?: string;
}

/** An item about one insured person or employee. */
export interface PersonItem extends PlanItem {
  readonly personalIdentityNumber: string;
}

export interface PlanDocument<Item extends PlanItem> {
  readonly header: PlanHeader;
  readonly items: readonly Item[];
}

export interface PlanItemContext extends ApplyContext {
  readonly agreement: AgreementFacts;
}

/**
 * What deciding an item gives: its effect to write (and, when the gateway created
 * something the sender must know, its reference: a new insurance or invoice number),
 * or why it is rejected.
 */
export type Decision<Effect> = { readonly accept: Effect; readonly reference?: string } | { readonly reject: RuleRejection };

export interface PlanMessageSpec<Item extends PlanItem, Facts, Effect> {
  readonly name: string;
  /** Default `${name}Response`. */
  readonly responseName?: string;
  readonly readItem: (item: XmlElement) => Item;
  /** Loads the ledger facts every item of the document needs, in as few queries as possible. */
  readonly loadFacts: (context: PlanItemContext, items: readonly Item[]) => Promise<Facts>;
  /** Decides one item against the facts, recording its own effect in them. */
  readonly decide: (context: PlanItemContext, facts: Facts, item: Item) => Decision<Effect>;
  /** Writes the accepted items' effects. */
  readonly write: (context: PlanItemContext, effects: readonly Effect[]) => Promise<void>;
}

/** A plan-administration document's ordering key: its agreement (also read at intake, ordering-key-hint.ts). */
export function agreementOrderingKey(agreementNumber: string): string {
  return `agreement:${agreementNumber}`;
}

export function definePlanMessage<Item extends PlanItem, Facts, Effect>(spec: PlanMessageSpec<Item, Facts, Effect>): MessageType<PlanDocument<Item>> {
  return {
    name: spec.name,
    responseName: spec.responseName ?? `${spec.name}Response`,
    family: 'plan-administration',
    read: (root) => ({ header: readHeader(root), items: childrenOf(root, 'Item').map(spec.readItem) }),
    senderMessageId: (doc) => doc.header.messageId,
    orderingKey: (doc) => agreementOrderingKey(doc.header.agreementNumber),
    apply: (context, doc) => applyPlanDocument(context, doc, spec),
    concurrentApply: true,
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

async function applyPlanDocument<Item extends PlanItem, Facts, Effect>(
  context: ApplyContext,
  doc: PlanDocument<Item>,
  spec: PlanMessageSpec<Item, Facts, Effect>,
): Promise<ApplyOutcome> {
  const { agreementNumber, employerOrganisationNumber } = doc.header;
  if (!isValidOrganisationNumber(employerOrganisationNumber)) {
    return rejectDocument(
      'ORGANISATION_NUMBER_INVALID',
      `EmployerOrganisationNumber ${employerOrganisationNumber} is not an organisation number: its check digit (or its group digit) is wrong.`,
    );
  }
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
  const facts = await spec.loadFacts(itemContext, doc.items);
  const seen = new Set<string>();
  const items: ItemOutcome[] = [];
  const effects: Effect[] = [];
  for (const item of doc.items) {
    const rejection = checkItem(item, seen);
    const decision: Decision<Effect> = rejection ? { reject: rejection } : spec.decide(itemContext, facts, item);
    if ('reject' in decision) {
      items.push(rejected(item.itemId, decision.reject));
    } else {
      effects.push(decision.accept);
      items.push(decision.reference === undefined ? { itemId: item.itemId, status: 'Accepted' } : { itemId: item.itemId, status: 'Accepted', reference: decision.reference });
    }
  }
  await spec.write(itemContext, effects);
  return { items, errors: [] };
}

/** The checks every plan item gets: a fresh item id and, when it names a person, a valid personal identity number. */
function checkItem(item: PlanItem, seen: Set<string>): RuleRejection | undefined {
  if (seen.has(item.itemId)) {
    return { code: 'DUPLICATE_ITEM', text: `Item id ${item.itemId} is used by an earlier item of this document.` };
  }
  seen.add(item.itemId);
  if (item.personalIdentityNumber !== undefined && !isValidPersonalIdentityNumber(item.personalIdentityNumber)) {
    return {
      code: 'PERSONAL_IDENTITY_NUMBER_INVALID',
      text: `${item.personalIdentityNumber} is not a valid personal identity number (date or check digit).`,
    };
  }
  return undefined;
}

function rejected(itemId: string, rejection: RuleRejection): ItemOutcome {
  return { itemId, status: 'Rejected', code: rejection.code, text: rejection.text };
}

function rejectDocument(code: keyof typeof ERROR_CODES, text: string): ApplyOutcome {
  return { items: [], errors: [{ code, text }] };
}
