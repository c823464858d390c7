import { Catalogue } from './catalogue.ts';
import { renderMessageReference, type OutgoingEntry } from './message-reference.ts';
import { loadSchemaModel } from './schema-model.ts';

/** The documents the gateway writes that answer no request of the catalogue. */
export const OUTGOING_DOCUMENTS: readonly OutgoingEntry[] = [
  { document: 'DebitAccounts', sentTo: 'a custodian, over its channel, by each debit run and payout month (docs/architecture.md)' },
  { document: 'EngagementResponse', sentTo: 'an advisor firm holding a power of attorney on the customer, as the answer to a direct query over the REST API or, to a DirectQuery request, over SSEK (docs/direct-query.md)' },
  { document: 'CommissionStatement', sentTo: 'an advisor firm (counterparty role advisor-firm), over its channel, by the monthly commission payment with the pain.001 payment order that pays it (docs/commission.md); fixtures in fixtures/CommissionStatement/' },
  { document: 'InvoiceSpecification', sentTo: "a pension-plan agreement's employer (or an administrator of the agreement), over its channel, once a month on the configured day; also kept as a PDF for staff (docs/invoice-specification.md)" },
  { document: 'CustodianSwitchOrder', sentTo: "the releasing custodian, over its channel, once per custodian switch when the policyholder's last signature makes it take effect (docs/custodian-switch.md)" },
];

/** The message reference of every registered request type, in family then name order, and of the documents the gateway writes. */
export function referenceOfCatalogue(schemaFolder: string, catalogue = new Catalogue()): string {
  const entries = catalogue.names
    .map((name) => catalogue.get(name))
    .filter((type) => type !== undefined)
    .map((type) => ({ request: type.name, response: type.responseName, family: type.family }))
    .sort((a, b) => a.family.localeCompare(b.family) || a.request.localeCompare(b.request));
  return renderMessageReference(loadSchemaModel(schemaFolder), entries, OUTGOING_DOCUMENTS);
}
