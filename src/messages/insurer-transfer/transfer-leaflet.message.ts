import { payoutCanBegin } from '../../core/payout-start.ts';
import type { RuleRejection } from '../../core/plan-rules.ts';
import { checkReceivedLeaflet, transferInStartDate, type TransferLeaflet } from '../../core/transfer-leaflet.ts';
import { findReceivingProduct, findTransferIn, registerTransferIn } from '../../ledger/plan/transfer-leaflets.repository.ts';
import type { ApplyContext, ApplyOutcome, MessageType } from '../message-type.ts';
import { readTransferLeaflet, TRANSFER_LEAFLET } from './transfer-leaflet.document.ts';

/**
 * TransferLeaflet received: another insurer (a counterparty of role `insurer`) moves an
 * insurance to us and sends its leaflet (flyttblad). The gateway registers the transfer
 * in: a new insurance of our first open product of the leaflet's type, starting the day
 * after the leaflet's last day in force, paying no premium, carrying the repayment
 * protection and payout start the leaflet gives, and awaiting the money (no custody
 * account yet; status `awaiting money`). Answered with one Item: ItemId the releasing
 * insurer's insurance number, Reference our new insurance number.
 *
 * The leaflet is one insurance, so a bad one is rejected whole and nothing is written:
 * every rule is checked before the first row. Rejections (docs/errors.md):
 * TRANSFER_LEAFLET_MISADDRESSED, INSURER_MISMATCH, PERSONAL_IDENTITY_NUMBER_INVALID,
 * TAX_CATEGORY_MISMATCH, TRANSFER_CONDITIONS_INVALID, TRANSFER_VALUE_DATE_IN_FUTURE,
 * INSURANCE_TYPE_NOT_OFFERED, TRANSFER_ALREADY_REGISTERED (the same insurance of the same
 * releasing insurer under another MessageId; the same document again is a duplicate at
 * intake). Leaflets of one releasing insurer are applied in arrival order.
 */
export const transferLeaflet: MessageType<TransferLeaflet> = {
  name: TRANSFER_LEAFLET,
  responseName: 'TransferLeafletResponse',
  family: 'insurer-transfer',
  read: readTransferLeaflet,
  senderMessageId: (leaflet) => leaflet.messageId,
  orderingKey: (leaflet) => `insurer:${leaflet.releasingInsurer}`,
  apply: applyTransferLeaflet,
};

async function applyTransferLeaflet(context: ApplyContext, leaflet: TransferLeaflet): Promise<ApplyOutcome> {
  const problems: RuleRejection[] = checkReceivedLeaflet(leaflet, {
    insurer: context.insurerOrganisationNumber, sender: context.sender.organisationNumber, today: context.today,
  });
  const productCode = await findReceivingProduct(context.tx, leaflet.insurance.insuranceType);
  if (!productCode) {
    problems.push({ code: 'INSURANCE_TYPE_NOT_OFFERED', text: `No product of type ${leaflet.insurance.insuranceType} is open to receive the capital in.` });
  }
  const registered = await findTransferIn(context.tx, leaflet.releasingInsurer, leaflet.insurance.insuranceNumber);
  if (registered) {
    problems.push({ code: 'TRANSFER_ALREADY_REGISTERED', text: `Insurance ${leaflet.insurance.insuranceNumber} of ${leaflet.releasingInsurer} is already registered here as ${registered}.` });
  }
  if (problems.length > 0 || !productCode) return { items: [], errors: problems.map(({ code, text }) => ({ code, text })) };
  const startDate = transferInStartDate(leaflet.insurance.lastDayInForce);
  const payoutFrom = payoutCanBegin({ insuredPin: leaflet.insurance.insured, payoutAge: leaflet.conditions.earliestPayoutAge, agreedFrom: leaflet.conditions.agreedPayoutFrom ?? null });
  const insuranceNumber = await registerTransferIn(context.tx, {
    messageId: context.messageId, counterpartyId: context.sender.counterpartyId, leaflet, productCode, startDate, payoutFrom, now: new Date(),
  });
  return { items: [{ itemId: leaflet.insurance.insuranceNumber, status: 'Accepted', reference: insuranceNumber }], errors: [] };
}
