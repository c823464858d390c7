import { checkDueBeforePaidUp, checkExtraPremiumAmount } from '../../core/premium.rules.ts';
import type { InsuranceFacts } from '../../ledger/plan/plan.repository.ts';
import { drawInvoiceNumbers, insertExtraPremiums, type NewExtraPremium } from '../../ledger/plan/extra-premium.repository.ts';
import { textOf } from '../xml-element.ts';
import { definePlanMessage, type PersonItem } from './plan-message.ts';
import { checkInsuranceDate, findItemInsurances, insuranceOfItem, readInsuranceItem } from './insurance-item.ts';

/**
 * ExtraPremium: the employer or administrator orders an invoice for a one-off extra
 * premium (extra inbetalning) into an insurance, on top of the monthly premium — for
 * example a bonus exchanged for pension (löneväxling of a bonus) or a top-up agreed at
 * retirement. The gateway numbers the invoice XP-<extra_premium_invoice_seq>
 * (XP-000001) and returns the number as the accepted item's reference, so the employer
 * knows which invoice to expect and pay by the due date. Billing stopped for leave
 * does not stop an extra premium: it is invoiced on its own.
 * Writes: one extra_premiums row (SEK) per accepted item.
 * Rejections: INSURANCE_UNKNOWN (not this person's insurance under the agreement), INSURANCE_ENDED (it has ended),
 * EFFECTIVE_DATE_TOO_OLD (due date further back than the back-dating window),
 * EFFECTIVE_DATE_BEFORE_START (due date before the insurance began), INSURANCE_PAID_UP
 * (paid-up on or before the due date), PREMIUM_OUT_OF_BOUNDS (amount above the
 * product's maximum extra premium).
 */
export interface ExtraPremiumItem extends PersonItem {
  readonly insuranceNumber: string;
  /** SEK; the schema allows no other currency. */
  readonly amount: string;
  readonly dueDate: string;
}

interface ExtraPremiumFacts {
  readonly insurances: Map<string, InsuranceFacts>;
  /** Invoice numbers drawn for the document and not yet given, lowest first. */
  readonly invoiceNumbers: string[];
}

export const extraPremium = definePlanMessage<ExtraPremiumItem, ExtraPremiumFacts, NewExtraPremium>({
  name: 'ExtraPremium',
  readItem: (item): ExtraPremiumItem => ({
    ...readInsuranceItem(item),
    amount: textOf(item, 'Amount'),
    dueDate: textOf(item, 'DueDate'),
  }),
  loadFacts: async (context, items) => ({
    insurances: await findItemInsurances(context, items),
    // One number per item, drawn at once; rejected items leave theirs unused.
    invoiceNumbers: await drawInvoiceNumbers(context.tx, items.length),
  }),
  decide(context, facts, item) {
    const found = insuranceOfItem(context, facts.insurances, item);
    if ('reject' in found) return found;
    const { insurance } = found;
    const rejection =
      checkInsuranceDate(context, insurance, item.dueDate, 'Due date') ??
      checkDueBeforePaidUp(insurance, item.dueDate) ??
      checkExtraPremiumAmount(item.amount, insurance);
    if (rejection) return { reject: rejection };
    // Taking the number is this item's effect on the facts: a later item gets the next one.
    const invoiceNumber = facts.invoiceNumbers.shift();
    if (invoiceNumber === undefined) throw new Error('more accepted extra premiums than invoice numbers drawn for the document');
    const invoice: NewExtraPremium = { invoiceNumber, insuranceNumber: insurance.insuranceNumber, amount: item.amount, currency: 'SEK', dueDate: item.dueDate };
    return { accept: invoice, reference: invoiceNumber };
  },
  write: (context, invoices) => insertExtraPremiums(context.tx, context.messageId, invoices),
});
