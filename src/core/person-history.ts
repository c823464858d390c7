/**
 * A person's plan history under one agreement, and its state as of a date. The
 * ledger only ever adds dated rows, so "what was true on 1 March" is the latest row
 * of each kind on or before 1 March; an end (employment, paid-up, billing stop, the
 * insurance's own end) is a dated fact of its own. Pure: the ledger reads the rows,
 * this module answers.
 */
export interface Dated {
  readonly effectiveDate: string;
}

export interface InsuranceHistory {
  readonly insuranceNumber: string;
  readonly productCode: string;
  readonly startDate: string;
  readonly paidUpFrom: string | null;
  /** The insurance's end once recorded: its last day in force and why (insurances.end_date, end_cause). */
  readonly end: InsuranceEnd | null;
  readonly premiums: readonly (Dated & { readonly monthlyAmount: string })[];
  readonly fees: readonly (Dated & { readonly feeType: string; readonly value: string })[];
  readonly billing: readonly (Dated & { readonly event: 'Stop' | 'Start'; readonly reason: string | null })[];
  readonly extraPremiums: readonly { readonly invoiceNumber: string; readonly amount: string; readonly dueDate: string }[];
  readonly allocations: readonly (Dated & { readonly purpose: string; readonly funds: readonly { readonly isin: string; readonly percent: string }[] })[];
  readonly transfers: readonly (Dated & { readonly fromProductCode: string; readonly toProductCode: string })[];
}

export interface InsuranceEnd {
  readonly lastDay: string;
  /** paid-out, transferred-out, surrendered or death. */
  readonly cause: string;
}

export interface PersonHistory {
  readonly agreementNumber: string;
  readonly personalIdentityNumber: string;
  readonly employment: { readonly startDate: string; readonly endDate: string | null; readonly endReason: string | null } | null;
  readonly salaries: readonly (Dated & { readonly annualSalary: string })[];
  readonly categories: readonly (Dated & { readonly categoryCode: string })[];
  readonly costCenters: readonly (Dated & { readonly costCenter: string })[];
  readonly insurances: readonly InsuranceHistory[];
}

export interface InsuranceState {
  readonly insuranceNumber: string;
  readonly productCode: string;
  /** Set once the date is past the insurance's last day in force: it then pays no premium and is billed nothing. */
  readonly ended: InsuranceEnd | null;
  readonly paidUp: boolean;
  readonly billingStopped: boolean;
  /** The premium in force; null when none is recorded or the insurance has ended. */
  readonly monthlyPremium: string | null;
  readonly distributionPlan: readonly { readonly isin: string; readonly percent: string }[] | null;
}

export interface PersonState {
  readonly asOf: string;
  readonly employed: boolean;
  readonly annualSalary: string | null;
  readonly categoryCode: string | null;
  readonly costCenter: string | null;
  readonly insurances: readonly InsuranceState[];
}

/** The latest row on or before `date` (rows in effective-date order, later rows win a tie). */
export function latestOn<T extends Dated>(rows: readonly T[], date: string): T | undefined {
  let found: T | undefined;
  for (const row of rows) if (row.effectiveDate <= date) found = row;
  return found;
}

export function personStateAsOf(history: PersonHistory, date: string): PersonState {
  const employment = history.employment;
  return {
    asOf: date,
    employed: employment !== null && employment.startDate <= date && (employment.endDate === null || employment.endDate >= date),
    annualSalary: latestOn(history.salaries, date)?.annualSalary ?? null,
    categoryCode: latestOn(history.categories, date)?.categoryCode ?? null,
    costCenter: latestOn(history.costCenters, date)?.costCenter ?? null,
    insurances: history.insurances
      .filter((insurance) => insurance.startDate <= date)
      .map((insurance) => {
        // The end date is the last day in force: the day after it, the insurance is ended.
        const ended = insurance.end !== null && insurance.end.lastDay < date ? insurance.end : null;
        return {
          insuranceNumber: insurance.insuranceNumber,
          productCode: latestOn(insurance.transfers, date)?.toProductCode ?? insurance.transfers[0]?.fromProductCode ?? insurance.productCode,
          ended,
          paidUp: insurance.paidUpFrom !== null && insurance.paidUpFrom <= date,
          billingStopped: ended === null && latestOn(insurance.billing, date)?.event === 'Stop',
          monthlyPremium: ended === null ? latestOn(insurance.premiums, date)?.monthlyAmount ?? null : null,
          distributionPlan: latestOn(insurance.allocations.filter((allocation) => allocation.purpose === 'DistributionPlan'), date)?.funds ?? null,
        };
      }),
  };
}
