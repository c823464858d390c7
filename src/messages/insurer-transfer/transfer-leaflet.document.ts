import type { ProductKind } from '../../core/transfer.rules.ts';
import type { BeneficiaryChoice, PayoutRestriction, TaxCategory, TransferLeaflet } from '../../core/transfer-leaflet.ts';
import { CATALOGUE_NAMESPACE } from '../catalogue-namespace.ts';
import { childOf, childrenOf, optionalTextOf, textOf, type XmlElement } from '../xml-element.ts';
import { element } from '../xml-writer.ts';

/**
 * The TransferLeaflet document (schemas/TransferLeaflet.xsd) both ways: written for the
 * receiving insurer of an insurance of ours that ended transferred out, read from an
 * insurer's leaflet to register a transfer in. Pure string building and reading.
 *
 * Invariant: the same leaflet gives the same bytes, so a leaflet re-delivered after a
 * failure is the same file.
 */
export const TRANSFER_LEAFLET = 'TransferLeaflet';

export function transferLeafletXml(leaflet: TransferLeaflet): string {
  const { insurance, value, conditions } = leaflet;
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n', `<TransferLeaflet xmlns="${CATALOGUE_NAMESPACE}">\n`, '  <Header>\n'];
  out.push(
    element('MessageId', leaflet.messageId, '    '),
    element('CreatedAt', leaflet.createdAt, '    '),
    element('ReleasingInsurer', leaflet.releasingInsurer, '    '),
    element('ReceivingInsurer', leaflet.receivingInsurer, '    '),
    element('ReleasingReference', leaflet.releasingReference, '    '),
    '  </Header>\n',
    '  <Insurance>\n',
    element('InsuranceNumber', insurance.insuranceNumber, '    '),
    element('InsuranceType', insurance.insuranceType, '    '),
    element('TaxCategory', insurance.taxCategory, '    '),
    element('StartDate', insurance.startDate, '    '),
    element('LastDayInForce', insurance.lastDayInForce, '    '),
    element('Policyholder', insurance.policyholder, '    '),
    element('Insured', insurance.insured, '    '),
    '  </Insurance>\n',
    '  <Value>\n',
    element('Amount', value.amount, '    '),
    element('ValueDate', value.valueDate, '    '),
    '  </Value>\n',
    '  <Conditions>\n',
    element('PayoutRestriction', conditions.payoutRestriction, '    '),
    element('EarliestPayoutAge', conditions.earliestPayoutAge, '    '),
    element('AgreedPayoutFrom', conditions.agreedPayoutFrom, '    '),
    element('MinimumPayoutMonths', conditions.minimumPayoutMonths, '    '),
    element('RepaymentProtection', String(conditions.repaymentProtection), '    '),
  );
  if (conditions.beneficiary) {
    out.push('    <Beneficiary>\n', element('Choice', conditions.beneficiary.choice, '      '));
    for (const name of conditions.beneficiary.names) out.push(element('Name', name, '      '));
    out.push('    </Beneficiary>\n');
  }
  out.push('  </Conditions>\n', '</TransferLeaflet>\n');
  return out.join('');
}

/** The leaflet of a schema-valid TransferLeaflet tree. */
export function readTransferLeaflet(root: XmlElement): TransferLeaflet {
  const header = required(root, 'Header');
  const insurance = required(root, 'Insurance');
  const value = required(root, 'Value');
  const conditions = required(root, 'Conditions');
  const beneficiary = childOf(conditions, 'Beneficiary');
  const agreedPayoutFrom = optionalTextOf(conditions, 'AgreedPayoutFrom');
  const minimumPayoutMonths = optionalTextOf(conditions, 'MinimumPayoutMonths');
  return {
    messageId: textOf(header, 'MessageId'),
    createdAt: textOf(header, 'CreatedAt'),
    releasingInsurer: textOf(header, 'ReleasingInsurer'),
    receivingInsurer: textOf(header, 'ReceivingInsurer'),
    releasingReference: textOf(header, 'ReleasingReference'),
    insurance: {
      insuranceNumber: textOf(insurance, 'InsuranceNumber'),
      insuranceType: textOf(insurance, 'InsuranceType') as ProductKind,
      taxCategory: textOf(insurance, 'TaxCategory') as TaxCategory,
      startDate: textOf(insurance, 'StartDate'),
      lastDayInForce: textOf(insurance, 'LastDayInForce'),
      policyholder: textOf(insurance, 'Policyholder'),
      insured: textOf(insurance, 'Insured'),
    },
    value: { amount: textOf(value, 'Amount'), valueDate: textOf(value, 'ValueDate') },
    conditions: {
      payoutRestriction: textOf(conditions, 'PayoutRestriction') as PayoutRestriction,
      earliestPayoutAge: Number(textOf(conditions, 'EarliestPayoutAge')),
      ...(agreedPayoutFrom === undefined ? {} : { agreedPayoutFrom }),
      ...(minimumPayoutMonths === undefined ? {} : { minimumPayoutMonths: Number(minimumPayoutMonths) }),
      repaymentProtection: ['true', '1'].includes(textOf(conditions, 'RepaymentProtection')),
      ...(beneficiary ? { beneficiary: { choice: textOf(beneficiary, 'Choice') as BeneficiaryChoice, names: childrenOf(beneficiary, 'Name').map((name) => name.text) } } : {}),
    },
  };
}

function required(parent: XmlElement, name: string): XmlElement {
  const child = childOf(parent, name);
  if (!child) throw new Error(`<${parent.name}> has no <${name}>`);
  return child;
}
