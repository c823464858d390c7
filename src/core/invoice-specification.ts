import { addDays, type IsoDate } from './calendar-date.ts';
import { decimal, sumOre, toOre, whole } from './charges/money.ts';
import { addMonths, requireYearMonth, type YearMonth } from './payout-plan.ts';
import { latestOn, type InsuranceHistory, type PersonHistory } from './person-history.ts';

/**
 * The monthly invoice specification of one pension-plan agreement: what the employer
 * is invoiced for a month, per insured and insurance, worked out from the plan ledger's
 * dated rows (person-history.ts). Pure: the ledger reads the histories, this module
 * answers, the document writers lay the answer out.
 *
 * The rules (docs/invoice-specification.md):
 * - a month's premium is billed by the day: each day of the month on which the
 *   insurance is in force (started, not past its last day), not paid-up, its billing
 *   not stopped, adds the monthly premium in force that day ÷ the month's days. A full
 *   month costs exactly the monthly premium; the sum is rounded once, half up to the
 *   öre, per insurance;
 * - an extra premium is invoiced in the month its due date falls in, at its amount;
 * - an insurance is listed when it is in force on a day of the month and was not
 *   paid-up before the month began, or when it has an extra premium due in the month;
 *   a person is listed with the insurances listed for them;
 * - category and cost center are the person's on the month's last day;
 * - changes since last month are the dated rows effective within the month (a new
 *   insurance, premium, category or cost center, a billing stop or start, paid-up, an
 *   insurance's or employment's end), and each line also carries what the same rules
 *   give for the month before;
 * - the totals are sums of the rounded lines, so the document adds up to the öre.
 */

export type InvoiceChangeKind =
  | 'NewInsurance' | 'PremiumChanged' | 'CategoryChanged' | 'CostCenterChanged'
  | 'BillingStopped' | 'BillingResumed' | 'PaidUp' | 'InsuranceEnded' | 'EmploymentEnded';

export interface InvoiceChange {
  readonly kind: InvoiceChangeKind;
  readonly effectiveDate: IsoDate;
  readonly insuranceNumber?: string;
  readonly from?: string;
  readonly to?: string;
}

export interface BillingStopPeriod {
  readonly from: IsoDate;
  /** The last day billing stays stopped; null while no start is recorded. */
  readonly to: IsoDate | null;
  readonly reason: string | null;
  /** Days of the month the stop covers. */
  readonly daysInMonth: number;
}

export interface InvoiceInsuranceLine {
  readonly insuranceNumber: string;
  readonly productCode: string;
  /** The monthly premium in force on the month's last billable day (or its last day); null when none is recorded. */
  readonly monthlyPremium: string | null;
  readonly billedDays: number;
  /** The premium billed for the month, to the öre. */
  readonly premium: string;
  readonly extraPremiums: readonly { readonly invoiceNumber: string; readonly amount: string; readonly dueDate: IsoDate }[];
  readonly billingStops: readonly BillingStopPeriod[];
  /** The same line's premium and extra premiums for the month before, by the same rules. */
  readonly previousMonthTotal: string;
  readonly total: string;
}

export interface InvoiceInsuredLine {
  readonly personalIdentityNumber: string;
  readonly categoryCode: string | null;
  readonly costCenter: string | null;
  readonly insurances: readonly InvoiceInsuranceLine[];
  readonly changes: readonly InvoiceChange[];
  readonly total: string;
}

export interface InvoiceSpecificationContent {
  readonly agreementNumber: string;
  readonly month: YearMonth;
  readonly periodFrom: IsoDate;
  readonly periodTo: IsoDate;
  readonly insured: readonly InvoiceInsuredLine[];
  readonly costCenters: readonly { readonly costCenter: string | null; readonly total: string }[];
  readonly totals: { readonly insuredCount: number; readonly premiums: string; readonly extraPremiums: string; readonly total: string; readonly previousMonthTotal: string };
}

/** The first and last day of a month. */
export function monthSpan(month: YearMonth): { firstDay: IsoDate; lastDay: IsoDate; days: number } {
  const { year, month: m } = requireYearMonth(month);
  const days = new Date(Date.UTC(year, m, 0)).getUTCDate();
  const firstDay = `${month}-01`;
  return { firstDay, lastDay: `${month}-${String(days).padStart(2, '0')}`, days };
}

/** The specification of `month` for the persons of one agreement. */
export function invoiceSpecification(agreementNumber: string, month: YearMonth, persons: readonly PersonHistory[]): InvoiceSpecificationContent {
  const span = monthSpan(month);
  const insured = [...persons]
    .sort((a, b) => a.personalIdentityNumber.localeCompare(b.personalIdentityNumber))
    .flatMap((person) => insuredLine(person, month) ?? []);
  const lines = insured.flatMap((person) => person.insurances);
  const premiums = sumOre(lines.map((line) => line.premium));
  const extraPremiums = sumOre(lines.flatMap((line) => line.extraPremiums.map((extra) => extra.amount)));
  const byCostCenter = new Map<string | null, string[]>();
  for (const person of insured) byCostCenter.set(person.costCenter, [...(byCostCenter.get(person.costCenter) ?? []), person.total]);
  return {
    agreementNumber, month, periodFrom: span.firstDay, periodTo: span.lastDay, insured,
    costCenters: [...byCostCenter].sort(([a], [b]) => (a ?? '').localeCompare(b ?? '')).map(([costCenter, totals]) => ({ costCenter, total: sumOre(totals) })),
    totals: {
      insuredCount: insured.length, premiums, extraPremiums, total: sumOre([premiums, extraPremiums]),
      previousMonthTotal: sumOre(lines.map((line) => line.previousMonthTotal)),
    },
  };
}

function insuredLine(person: PersonHistory, month: YearMonth): InvoiceInsuredLine | undefined {
  const span = monthSpan(month);
  const insurances = person.insurances.flatMap((insurance) => insuranceLine(insurance, month) ?? []);
  if (insurances.length === 0) return undefined;
  return {
    personalIdentityNumber: person.personalIdentityNumber,
    categoryCode: latestOn(person.categories, span.lastDay)?.categoryCode ?? null,
    costCenter: latestOn(person.costCenters, span.lastDay)?.costCenter ?? null,
    insurances,
    changes: changesIn(person, span.firstDay, span.lastDay).filter((change) => !change.insuranceNumber || insurances.some((line) => line.insuranceNumber === change.insuranceNumber)),
    total: sumOre(insurances.map((line) => line.total)),
  };
}

function inForce(insurance: InsuranceHistory, day: IsoDate): boolean {
  return insurance.startDate <= day && (insurance.end === null || insurance.end.lastDay >= day);
}

function billable(insurance: InsuranceHistory, day: IsoDate): boolean {
  return inForce(insurance, day) && !(insurance.paidUpFrom !== null && insurance.paidUpFrom <= day) && latestOn(insurance.billing, day)?.event !== 'Stop';
}

/** The month's premium and extra premiums of one insurance, or undefined when it is not listed that month. */
function billMonth(insurance: InsuranceHistory, month: YearMonth) {
  const span = monthSpan(month);
  let sum = whole(0);
  let billedDays = 0;
  let lastBillable: IsoDate | undefined;
  let listed = false;
  for (let day = span.firstDay; day <= span.lastDay; day = addDays(day, 1)) {
    if (inForce(insurance, day)) listed = true;
    if (!billable(insurance, day)) continue;
    const premium = latestOn(insurance.premiums, day)?.monthlyAmount;
    if (premium === undefined) continue;
    billedDays += 1;
    lastBillable = day;
    sum = sum.plus(decimal(premium, `premium of ${insurance.insuranceNumber}`));
  }
  const extraPremiums = insurance.extraPremiums.filter((extra) => extra.dueDate >= span.firstDay && extra.dueDate <= span.lastDay);
  const paidUpBefore = insurance.paidUpFrom !== null && insurance.paidUpFrom <= span.firstDay;
  if (!(listed && !paidUpBefore) && extraPremiums.length === 0) return undefined;
  const premium = toOre(sum.dividedBy(span.days));
  return {
    premium, billedDays, extraPremiums,
    monthlyPremium: latestOn(insurance.premiums, lastBillable ?? span.lastDay)?.monthlyAmount ?? null,
    total: sumOre([premium, ...extraPremiums.map((extra) => extra.amount)]),
  };
}

function insuranceLine(insurance: InsuranceHistory, month: YearMonth): InvoiceInsuranceLine | undefined {
  const billed = billMonth(insurance, month);
  if (!billed) return undefined;
  return {
    insuranceNumber: insurance.insuranceNumber,
    productCode: latestOn(insurance.transfers, monthSpan(month).lastDay)?.toProductCode ?? insurance.productCode,
    monthlyPremium: billed.monthlyPremium === null ? null : decimal(billed.monthlyPremium, 'premium').toFixed(2),
    billedDays: billed.billedDays,
    premium: billed.premium,
    extraPremiums: billed.extraPremiums.map((extra) => ({ ...extra, amount: decimal(extra.amount, 'extra premium').toFixed(2) })),
    billingStops: billingStopsIn(insurance, month),
    previousMonthTotal: billMonth(insurance, addMonths(month, -1))?.total ?? '0.00',
    total: billed.total,
  };
}

/** The billing stops that cover a day of the month: billing alternates Stop, Start; a start ends the stop the day before it. */
export function billingStopsIn(insurance: Pick<InsuranceHistory, 'billing'>, month: YearMonth): BillingStopPeriod[] {
  const span = monthSpan(month);
  const stops: BillingStopPeriod[] = [];
  let open: { from: IsoDate; reason: string | null } | undefined;
  const close = (to: IsoDate | null) => {
    if (!open) return;
    const from = open.from > span.firstDay ? open.from : span.firstDay;
    const until = to === null || to > span.lastDay ? span.lastDay : to;
    if (from <= until && open.from <= span.lastDay) {
      stops.push({ from: open.from, to, reason: open.reason, daysInMonth: Math.round((Date.parse(until) - Date.parse(from)) / 86_400_000) + 1 });
    }
    open = undefined;
  };
  for (const event of insurance.billing) {
    if (event.event === 'Stop' && !open) open = { from: event.effectiveDate, reason: event.reason };
    else if (event.event === 'Start' && open) close(addDays(event.effectiveDate, -1));
  }
  close(null);
  return stops;
}

/** The dated rows of a person effective within [from, to]. */
function changesIn(person: PersonHistory, from: IsoDate, to: IsoDate): InvoiceChange[] {
  const within = (date: string | null | undefined): date is string => date !== null && date !== undefined && date >= from && date <= to;
  const changes: InvoiceChange[] = [];
  const dated = <T extends { effectiveDate: string }>(rows: readonly T[], kind: InvoiceChangeKind, value: (row: T) => string, insuranceNumber?: string) => {
    rows.forEach((row, index) => {
      if (!within(row.effectiveDate)) return;
      const before = index > 0 ? rows[index - 1] : undefined;
      if (before && value(before) === value(row)) return;
      changes.push({ kind, effectiveDate: row.effectiveDate, ...(insuranceNumber ? { insuranceNumber } : {}), ...(before ? { from: value(before) } : {}), to: value(row) });
    });
  };
  dated(person.categories, 'CategoryChanged', (row) => row.categoryCode);
  dated(person.costCenters, 'CostCenterChanged', (row) => row.costCenter);
  const employmentEnd = person.employment?.endDate;
  if (within(employmentEnd)) changes.push({ kind: 'EmploymentEnded', effectiveDate: employmentEnd, ...(person.employment?.endReason ? { to: person.employment.endReason } : {}) });
  for (const insurance of person.insurances) {
    const insuranceNumber = insurance.insuranceNumber;
    if (within(insurance.startDate)) changes.push({ kind: 'NewInsurance', effectiveDate: insurance.startDate, insuranceNumber });
    dated(insurance.premiums, 'PremiumChanged', (row) => decimal(row.monthlyAmount, 'premium').toFixed(2), insuranceNumber);
    for (const event of insurance.billing) {
      if (!within(event.effectiveDate)) continue;
      changes.push(event.event === 'Stop'
        ? { kind: 'BillingStopped', effectiveDate: event.effectiveDate, insuranceNumber, ...(event.reason ? { to: event.reason } : {}) }
        : { kind: 'BillingResumed', effectiveDate: event.effectiveDate, insuranceNumber });
    }
    const paidUpFrom = insurance.paidUpFrom;
    if (within(paidUpFrom)) changes.push({ kind: 'PaidUp', effectiveDate: paidUpFrom, insuranceNumber });
    const end = insurance.end;
    if (end && within(end.lastDay)) changes.push({ kind: 'InsuranceEnded', effectiveDate: end.lastDay, insuranceNumber, to: end.cause });
  }
  // A category or premium set on the insurance's or employment's first day is that start, not a change.
  const starts = new Set(person.insurances.map((insurance) => insurance.startDate));
  if (person.employment) starts.add(person.employment.startDate);
  return changes
    .filter((change) => !((change.kind === 'PremiumChanged' || change.kind === 'CategoryChanged' || change.kind === 'CostCenterChanged') && change.from === undefined && starts.has(change.effectiveDate)))
    .sort((a, b) => a.effectiveDate.localeCompare(b.effectiveDate) || a.kind.localeCompare(b.kind) || (a.insuranceNumber ?? '').localeCompare(b.insuranceNumber ?? ''));
}
