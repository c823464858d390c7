import type { InsuranceState, PersonHistory, PersonState } from '../core/person-history.ts';

/** What `depot-gateway person` shows: the state as of a date and the history behind it. */
export interface PersonView {
  readonly state: PersonState;
  readonly history: PersonHistory;
}

/** Plain text for a terminal: the state first, then every dated row, oldest first. */
export function formatPerson({ state, history }: PersonView): string {
  const lines = [
    `${history.personalIdentityNumber} under agreement ${history.agreementNumber}, as of ${state.asOf}:`,
    `  employed ${state.employed ? 'yes' : 'no'}, salary ${state.annualSalary ?? '-'} a year, category ${state.categoryCode ?? '-'}, cost center ${state.costCenter ?? '-'}`,
    ...state.insurances.map(
      (insurance) =>
        `  ${insurance.insuranceNumber} ${insurance.productCode}: ${insuranceStateText(insurance)}` +
        `${insurance.billingStopped ? ', billing stopped' : ''}` +
        `${insurance.distributionPlan && !insurance.ended ? `, plan ${insurance.distributionPlan.map((fund) => `${fund.isin} ${fund.percent} %`).join(' + ')}` : ''}`,
    ),
    '',
    'history:',
  ];
  const events: [string, string][] = [];
  const employment = history.employment;
  if (employment) {
    events.push([employment.startDate, 'employment started']);
    if (employment.endDate) events.push([employment.endDate, `employment ended${employment.endReason ? ` (${employment.endReason})` : ''}`]);
  }
  for (const row of history.salaries) events.push([row.effectiveDate, `salary ${row.annualSalary}`]);
  for (const row of history.categories) events.push([row.effectiveDate, `category ${row.categoryCode}`]);
  for (const row of history.costCenters) events.push([row.effectiveDate, `cost center ${row.costCenter}`]);
  for (const insurance of history.insurances) {
    const of = insurance.insuranceNumber;
    events.push([insurance.startDate, `${of} started (${insurance.productCode})`]);
    if (insurance.paidUpFrom) events.push([insurance.paidUpFrom, `${of} paid-up`]);
    if (insurance.end) events.push([insurance.end.lastDay, `${of} ended (${insurance.end.cause}), its last day in force`]);
    for (const row of insurance.premiums) events.push([row.effectiveDate, `${of} premium ${row.monthlyAmount} a month`]);
    for (const row of insurance.fees) events.push([row.effectiveDate, `${of} ${row.feeType} ${row.value}`]);
    for (const row of insurance.billing) events.push([row.effectiveDate, `${of} billing ${row.event === 'Stop' ? 'stopped' : 'started'}${row.reason ? ` (${row.reason})` : ''}`]);
    for (const row of insurance.extraPremiums) events.push([row.dueDate, `${of} extra premium ${row.amount}, invoice ${row.invoiceNumber}`]);
    for (const row of insurance.allocations) events.push([row.effectiveDate, `${of} ${row.purpose} ${row.funds.map((fund) => `${fund.isin} ${fund.percent} %`).join(' + ')}`]);
    for (const row of insurance.transfers) events.push([row.effectiveDate, `${of} moved ${row.fromProductCode} → ${row.toProductCode}`]);
  }
  events.sort(([a], [b]) => a.localeCompare(b));
  return `${[...lines, ...events.map(([date, text]) => `  ${date}  ${text}`)].join('\n')}\n`;
}

/** An ended insurance says when and why, and no premium; otherwise paid-up or its premium. */
function insuranceStateText(insurance: InsuranceState): string {
  if (insurance.ended) return `ended ${insurance.ended.lastDay} (${insurance.ended.cause})`;
  return insurance.paidUp ? 'paid-up' : `premium ${insurance.monthlyPremium ?? '-'} a month`;
}
