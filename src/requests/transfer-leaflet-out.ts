import type { IsoDate } from '../core/calendar-date.ts';
import { GatewayError } from '../core/gateway-error.ts';
import { conditionsOf, outgoingLeafletIds, taxCategoryOf, type TransferLeaflet } from '../core/transfer-leaflet.ts';
import type { Sql } from '../ledger/database.ts';
import { recordStaffEnd, type EndOutcome, type InsuranceEndCause, type StaffEnd } from '../ledger/plan/insurance-end.repository.ts';
import { insertOutgoingLeaflet, readLeafletFacts } from '../ledger/plan/transfer-leaflets.repository.ts';
import { TRANSFER_LEAFLET, transferLeafletXml } from '../messages/insurer-transfer/transfer-leaflet.document.ts';
import { outgoingDeliveryKey } from '../pipeline/deliver-outgoing.ts';
import type { PipelineDeps } from '../pipeline/pipeline-deps.ts';

/**
 * The transfer leaflet out: when staff record that an insurance ended transferred out
 * and name the receiving insurer (a counterparty of role `insurer`), the gateway writes
 * the insurance's TransferLeaflet and records it as an outgoing document in the same
 * transaction as the end — there is never an end to an insurer without its leaflet, nor
 * a leaflet without the end. Once committed the leaflet is handed to the deliver stage,
 * which sends it over the receiving insurer's channel as it sends a DebitAccounts file:
 * retried, every attempt recorded, put back by the reconciler when a hand-over was lost.
 *
 * Exactly once: the document id is TL-<insurance number> and an insurance ends once, so
 * a second leaflet cannot be recorded; a delivered document is not delivered again.
 * The leaflet states the custody value last reported on or before the last day: without
 * one the end is refused (TRANSFER_VALUE_UNKNOWN) and nothing is recorded.
 */
export type LeafletDeps = Pick<PipelineDeps, 'db' | 'counterparties' | 'insurerOrganisationNumber' | 'scheduler' | 'log'>;

export interface EndInput {
  readonly insuranceNumber: string;
  readonly endDate: IsoDate;
  readonly cause: InsuranceEndCause;
  readonly endedBy: string;
  readonly beneficiary?: { name: string; account: string } | undefined;
  /** The counterparty id of the insurer a transferred-out insurance moves to. */
  readonly receivingInsurer?: string | undefined;
}

/** An end recorded, with the leaflet it sent when it names a receiving insurer. */
export type EndWithLeaflet = StaffEnd & { readonly transferLeaflet?: { readonly documentId: string; readonly receivingInsurer: string } };

/** Records an end as staff report it and, for a move to a named insurer, its leaflet; hands the leaflet to delivery after the commit. */
export async function recordEndWithLeaflet(deps: LeafletDeps, input: EndInput, now: Date): Promise<EndOutcome<EndWithLeaflet>> {
  const insurer = input.receivingInsurer === undefined ? undefined : receivingInsurerOf(deps, input.receivingInsurer);
  const outcome = await deps.db.transaction(async (tx): Promise<EndOutcome<EndWithLeaflet>> => {
    const recorded = await recordStaffEnd(tx, input, now);
    if (!('ended' in recorded) || !insurer) return recorded;
    const documentId = await recordLeaflet(tx, deps, { insuranceNumber: input.insuranceNumber, lastDay: input.endDate, insurer, createdBy: input.endedBy }, now);
    return { ended: { ...recorded.ended, transferLeaflet: { documentId, receivingInsurer: insurer.id } } };
  });
  const sent = 'ended' in outcome ? outcome.ended.transferLeaflet : undefined;
  if (sent) await handOverLeaflet(deps, sent.documentId);
  return outcome;
}

function receivingInsurerOf(deps: LeafletDeps, id: string): { id: string; organisationNumber: string } {
  const counterparty = deps.counterparties.get(id);
  if (counterparty?.role === 'insurer') return { id, organisationNumber: counterparty.organisationNumber };
  const insurers = [...deps.counterparties.values()].filter((c) => c.role === 'insurer').map((c) => c.id);
  throw new GatewayError('REQUEST_INVALID', `receivingInsurer: ${id} is not an insurer counterparty (${insurers.length > 0 ? `insurers: ${insurers.join(', ')}` : 'none is configured'}).`);
}

async function recordLeaflet(
  tx: Sql, deps: LeafletDeps, input: { insuranceNumber: string; lastDay: IsoDate; insurer: { id: string; organisationNumber: string }; createdBy: string }, now: Date,
): Promise<string> {
  const facts = await readLeafletFacts(tx, input.insuranceNumber, input.lastDay);
  if (!facts) throw new GatewayError('RESOURCE_NOT_FOUND', `No insurance ${input.insuranceNumber}.`);
  if (!facts.value || Number(facts.value.amount) <= 0) {
    throw new GatewayError('TRANSFER_VALUE_UNKNOWN', `Insurance ${input.insuranceNumber}: no positive custody value is reported on or before ${input.lastDay}; its transfer leaflet must state one.`);
  }
  const ids = outgoingLeafletIds(input.insuranceNumber);
  const leaflet: TransferLeaflet = {
    messageId: ids.messageId,
    createdAt: now.toISOString(),
    releasingInsurer: deps.insurerOrganisationNumber,
    receivingInsurer: input.insurer.organisationNumber,
    releasingReference: ids.reference,
    insurance: {
      insuranceNumber: facts.insuranceNumber, insuranceType: facts.type, taxCategory: taxCategoryOf(facts.type), startDate: facts.startDate,
      lastDayInForce: input.lastDay, policyholder: facts.policyholder ?? facts.insured, insured: facts.insured,
    },
    value: facts.value,
    conditions: conditionsOf(facts),
  };
  await insertOutgoingLeaflet(tx, {
    leaflet, receivingInsurerId: input.insurer.id, documentId: ids.messageId, fileName: `${ids.messageId}.${TRANSFER_LEAFLET}.xml`,
    body: transferLeafletXml(leaflet), createdBy: input.createdBy, now,
  });
  return ids.messageId;
}

/** Hands a recorded leaflet to the deliver stage; a failed hand-over is logged and left to the reconciler. */
async function handOverLeaflet(deps: LeafletDeps, documentId: string): Promise<void> {
  try {
    await deps.scheduler.enqueue('deliver', [outgoingDeliveryKey(documentId)], { separately: true });
  } catch (error) {
    deps.log.warn({ documentId, err: (error as Error).message }, 'transfer leaflet not delivered yet; it stays recorded and is delivered later');
  }
}
