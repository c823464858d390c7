/** Small builders for plan-administration documents used by the integration tests. */
import { CATALOGUE_NAMESPACE } from '../../src/messages/catalogue-namespace.ts';
import { DEMO } from '../../src/demo/demo-data.ts';

const NS = CATALOGUE_NAMESPACE;

export interface HeaderFields {
  messageId: string;
  agreementNumber?: string;
  employer?: string;
}

function header(fields: HeaderFields): string {
  return `  <Header>
    <MessageId>${fields.messageId}</MessageId>
    <CreatedAt>2026-11-20T09:00:00+01:00</CreatedAt>
    <AgreementNumber>${fields.agreementNumber ?? DEMO.agreementNumber}</AgreementNumber>
    <EmployerOrganisationNumber>${fields.employer ?? DEMO.employerOrganisationNumber}</EmployerOrganisationNumber>
  </Header>
`;
}

/**
 * Any plan-administration document from its items' field lines (each already indented
 * to sit inside <Item>); the items get ItemIds <messageId>-1, -2, ….
 */
export function planDocument(root: string, messageId: string, items: readonly string[]): string {
  const body = items.map((item, index) => `  <Item>\n    <ItemId>${messageId}-${index + 1}</ItemId>\n${item}  </Item>\n`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns="${NS}">\n${header({ messageId })}${body}</${root}>\n`;
}

export function changeFee(fields: HeaderFields, items: { itemId?: string; pin: string; insurance: string; date: string; type: 'FixedCharge' | 'CapitalCharge'; value: string }[]): string {
  const body = items
    .map((item, index) => `  <Item>
    <ItemId>${item.itemId ?? index + 1}</ItemId>
    <PersonalIdentityNumber>${item.pin}</PersonalIdentityNumber>
    <InsuranceNumber>${item.insurance}</InsuranceNumber>
    <EffectiveDate>${item.date}</EffectiveDate>
    <FeeType>${item.type}</FeeType>
    <Value>${item.value}</Value>
  </Item>
`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<ChangeFee xmlns="${NS}">\n${header(fields)}${body}</ChangeFee>\n`;
}

export function salaryAdjustment(fields: HeaderFields, items: { itemId?: string; pin: string; date: string; salary: string }[]): string {
  const body = items
    .map((item, index) => `  <Item>
    <ItemId>${item.itemId ?? index + 1}</ItemId>
    <PersonalIdentityNumber>${item.pin}</PersonalIdentityNumber>
    <EffectiveDate>${item.date}</EffectiveDate>
    <AnnualSalary currency="SEK">${item.salary}</AnnualSalary>
  </Item>
`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<SalaryAdjustment xmlns="${NS}">\n${header(fields)}${body}</SalaryAdjustment>\n`;
}

export function employmentEnded(fields: HeaderFields, items: { itemId?: string; pin: string; endDate: string; reason?: string }[]): string {
  const body = items
    .map((item, index) => `  <Item>
    <ItemId>${item.itemId ?? index + 1}</ItemId>
    <PersonalIdentityNumber>${item.pin}</PersonalIdentityNumber>
    <EndDate>${item.endDate}</EndDate>
${item.reason ? `    <Reason>${item.reason}</Reason>\n` : ''}  </Item>
`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<EmploymentEnded xmlns="${NS}">\n${header(fields)}${body}</EmploymentEnded>\n`;
}

/** The demo ledger's insured persons (src/demo/demo-data.ts). */
export const PERSONS = DEMO.persons;
