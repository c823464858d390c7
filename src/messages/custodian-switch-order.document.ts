import { CATALOGUE_NAMESPACE } from './catalogue-namespace.ts';
import { element } from './xml-writer.ts';

/**
 * Writes the CustodianSwitchOrder document (schemas/CustodianSwitchOrder.xsd): the
 * insurer's order to the releasing custodian to move an account's holdings in kind to
 * the receiving custodian. Pure: the same input gives the same bytes, so a delivery
 * made again is the same file.
 */
export const CUSTODIAN_SWITCH_ORDER = 'CustodianSwitchOrder';

export interface CustodianSwitchOrderInput {
  readonly switchId: string;
  readonly createdAt: Date;
  readonly insurerOrganisationNumber: string;
  readonly custodianOrganisationNumber: string;
  readonly insuranceNumber: string;
  readonly accountNumber: string;
  readonly receiving: { readonly organisationNumber: string; readonly name: string; readonly accountNumber: string | null };
  readonly signedAt: Date;
}

export function custodianSwitchOrderId(switchId: string): string {
  return `CSO-${switchId}`;
}

export function custodianSwitchOrderXml(input: CustodianSwitchOrderInput): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>\n', `<${CUSTODIAN_SWITCH_ORDER} xmlns="${CATALOGUE_NAMESPACE}">\n`, '  <Header>\n',
    element('MessageId', custodianSwitchOrderId(input.switchId), '    '),
    element('CreatedAt', input.createdAt.toISOString(), '    '),
    element('InsurerOrganisationNumber', input.insurerOrganisationNumber, '    '),
    element('CustodianOrganisationNumber', input.custodianOrganisationNumber, '    '),
    '  </Header>\n',
    element('SwitchId', input.switchId, '  '),
    element('InsuranceNumber', input.insuranceNumber, '  '),
    element('AccountNumber', input.accountNumber, '  '),
    '  <ReceivingCustodian>\n',
    element('OrganisationNumber', input.receiving.organisationNumber, '    '),
    element('Name', input.receiving.name, '    '),
    element('AccountNumber', input.receiving.accountNumber ?? undefined, '    '),
    '  </ReceivingCustodian>\n',
    element('SignedAt', input.signedAt.toISOString(), '  '),
    `</${CUSTODIAN_SWITCH_ORDER}>\n`,
  ].join('');
}
