import { stockholmDate } from '../core/calendar-date.ts';
import { planPremiums, type PremiumRuleInput } from '../core/plan-application.rules.ts';
import type { PlanApplicationRecord } from '../ledger/advice/applications.repository.ts';
import { signatoriesSection } from './signatories-section.ts';
import { renderTextPdf } from './text-pdf.ts';

/**
 * The receipt of a pension plan application: a PDF copy of the plan applied for — the
 * employer, the agreement's categories and cost centers, the funds, and each employee
 * with the monthly premium the category gives — with the application id and the time
 * it was submitted, and which of the employer's signatories signed, when, for the
 * advisor to hand to the employer.
 */
export function renderPlanApplicationReceipt(application: PlanApplicationRecord): Promise<Buffer> {
  const body = application.body;
  const premiums = planPremiums(body, stockholmDate(new Date(application.submittedAt)));
  return renderTextPdf(`Application ${application.applicationId}`, [
    { heading: 'Received', lines: [`Submitted ${application.submittedAt} by advisor ${application.advisorCode} (${application.firmOrganisationNumber})`, `Status: ${application.status}`] },
    { heading: 'Pension plan', lines: [
      `Employer: ${body.employer.name} (${body.employer.organisationNumber})`, `Product: ${application.productName} (${application.productId})`, `Custodian: ${body.custodianId}`,
      ...(application.agreementId ? [`Agreement: ${application.agreementId}`] : []),
    ] },
    { heading: 'Categories', lines: body.agreement.categories.map((category) => `${category.code} ${category.name}: ${describeRule(category.premium)}`) },
    { heading: 'Cost centers', lines: body.agreement.costCenters.map((costCenter) => `${costCenter.code} ${costCenter.name}`) },
    { heading: 'Funds', lines: body.funds.map((fund) => `${fund.isin}: ${fund.percent} %`) },
    { heading: `Employees (${body.employees.length})`, lines: body.employees.map((employee, index) =>
      `${employee.personalIdentityNumber}: category ${employee.category}, cost center ${employee.costCenter}, salary ${employee.annualSalary} SEK a year, ` +
      `employed from ${employee.employmentStart}, premium ${premiums[index]!.monthlyPremium} SEK a month`) },
    signatoriesSection(application.signing),
  ], new Date(application.submittedAt));
}

function describeRule(rule: PremiumRuleInput): string {
  if ('fixedMonthly' in rule) return `${rule.fixedMonthly} SEK a month`;
  return rule.percentAboveCap === undefined
    ? `${rule.percentOfSalary} % of the monthly salary`
    : `${rule.percentOfSalary} % of the monthly salary up to 7.5 income base amounts a year, ${rule.percentAboveCap} % above`;
}
