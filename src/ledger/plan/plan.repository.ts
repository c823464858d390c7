import { coalesce } from '../coalesce.ts';
import type { Sql } from '../database.ts';

/**
 * Ledger queries for plan administration. Reads load the facts a whole document
 * needs in one query; writes add the accepted items' dated history rows in one
 * statement (unnest over arrays). Dates travel as YYYY-MM-DD, amounts as decimal strings.
 */
export interface AgreementFacts {
  readonly agreementNumber: string;
  readonly employerOrganisationNumber: string;
  readonly administrators: readonly string[];
}

/** The agreement's employer and administrators, or undefined when the agreement is not known. */
export function findAgreement(sql: Sql, agreementNumber: string): Promise<AgreementFacts | undefined> {
  return agreementsByNumber(sql, agreementNumber);
}

const agreementsByNumber = coalesce(async (sql, agreementNumbers: readonly string[]) => {
  const { rows } = await sql.query<{ agreement_number: string; employer_organisation_number: string; administrators: string[] | null }>(
    `SELECT a.agreement_number, a.employer_organisation_number,
            array_remove(array_agg(ad.organisation_number), NULL) AS administrators
       FROM agreements a LEFT JOIN agreement_administrators ad USING (agreement_number)
      WHERE a.agreement_number = ANY($1::text[]) GROUP BY a.agreement_number, a.employer_organisation_number`,
    [[...new Set(agreementNumbers)]],
  );
  const found = new Map<string, AgreementFacts>(rows.map((row) => [
    row.agreement_number,
    { agreementNumber: row.agreement_number, employerOrganisationNumber: row.employer_organisation_number, administrators: row.administrators ?? [] },
  ]));
  return agreementNumbers.map((number) => found.get(number));
});

export interface InsuranceFacts {
  readonly insuranceNumber: string;
  readonly insuredPin: string;
  readonly productCode: string;
  /** P private pension, T occupational pension, K capital insurance (from the product). */
  readonly productKind: 'P' | 'T' | 'K';
  readonly startDate: string;
  readonly custodyAccount: string | null;
  readonly minFixedCharge: string;
  readonly maxFixedCharge: string;
  readonly minCapitalCharge: string;
  readonly maxCapitalCharge: string;
  readonly minMonthlyPremium: string;
  readonly maxMonthlyPremium: string;
  readonly maxExtraPremium: string;
  /** The day the insurance became (or becomes) paid-up, or null while premiums are paid. Handlers may set it. */
  paidUpFrom: string | null;
  /** The latest billing event, or null when billing never stopped. Handlers may replace it. */
  lastBillingEvent: { readonly event: 'Stop' | 'Start'; readonly effectiveDate: string } | null;
  /** The latest monthly premium, or null when none is recorded. */
  monthlyPremium: string | null;
  /** Its last day in force and why it ended (insurances.end_date, end_cause), or null while it has not ended. */
  readonly end: { readonly lastDay: string; readonly cause: string } | null;
}

/** What a coalesced read of one agreement's rows asks for: the agreement and the keys within it. */
interface AgreementKeys {
  readonly agreementNumber: string;
  readonly keys: readonly string[];
}

/** The (agreement, key) pairs of several requests, as two parallel arrays for `unnest`. */
function pairsOf(requests: readonly AgreementKeys[]): [string[], string[]] {
  const agreements: string[] = [];
  const keys: string[] = [];
  for (const request of requests) {
    for (const key of new Set(request.keys)) {
      agreements.push(request.agreementNumber);
      keys.push(key);
    }
  }
  return [agreements, keys];
}

/** Gives each request the rows of its agreement whose key it asked for. */
function splitByRequest<Row>(requests: readonly AgreementKeys[], rows: readonly Row[], agreementOf: (row: Row) => string, keyOf: (row: Row) => string): Row[][] {
  const wanted = requests.map((request) => new Set(request.keys));
  const byAgreement = new Map<string, Row[]>();
  for (const row of rows) {
    const list = byAgreement.get(agreementOf(row)) ?? [];
    list.push(row);
    byAgreement.set(agreementOf(row), list);
  }
  return requests.map((request, index) => (byAgreement.get(request.agreementNumber) ?? []).filter((row) => wanted[index]?.has(keyOf(row))));
}

/**
 * The agreement's insurances among `insuranceNumbers`, by number, with their product's
 * bounds and their current paid-up, billing and premium state, in one query.
 */
export async function findInsurances(sql: Sql, agreementNumber: string, insuranceNumbers: readonly string[]): Promise<Map<string, InsuranceFacts>> {
  const rows = await insurancesByNumber(sql, { agreementNumber, keys: insuranceNumbers });
  return new Map(rows.map((row) => [row.insurance_number, toInsuranceFacts(row)]));
}

const insurancesByNumber = coalesce(async (sql, requests: readonly AgreementKeys[]) => {
  const { rows } = await sql.query<InsuranceRow & { agreement_number: string }>(
    `${INSURANCE_FACTS_SQL} WHERE (i.agreement_number, i.insurance_number) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
    pairsOf(requests),
  );
  return splitByRequest(requests, rows, (row) => row.agreement_number, (row) => row.insurance_number);
});

/** Every insurance under the agreement of each person among `pins`, by person, in insurance-number order. */
export async function findInsurancesOfPersons(sql: Sql, agreementNumber: string, pins: readonly string[]): Promise<Map<string, InsuranceFacts[]>> {
  const rows = await insurancesByPerson(sql, { agreementNumber, keys: pins });
  const byPerson = new Map<string, InsuranceFacts[]>();
  for (const row of rows) {
    const list = byPerson.get(row.insured_pin) ?? [];
    list.push(toInsuranceFacts(row));
    byPerson.set(row.insured_pin, list);
  }
  return byPerson;
}

const insurancesByPerson = coalesce(async (sql, requests: readonly AgreementKeys[]) => {
  const { rows } = await sql.query<InsuranceRow & { agreement_number: string }>(
    `${INSURANCE_FACTS_SQL} WHERE (i.agreement_number, i.insured_pin) IN (SELECT * FROM unnest($1::text[], $2::text[])) ORDER BY i.insurance_number`,
    pairsOf(requests),
  );
  return splitByRequest(requests, rows, (row) => row.agreement_number, (row) => row.insured_pin);
});

interface InsuranceRow {
  insurance_number: string; insured_pin: string; product_code: string; product_kind: 'P' | 'T' | 'K'; start_date: string;
  custody_account: string | null; min_fixed_charge: string; max_fixed_charge: string; min_capital_charge: string;
  max_capital_charge: string; min_monthly_premium: string; max_monthly_premium: string; max_extra_premium: string;
  paid_up_from: string | null; billing_event: 'Stop' | 'Start' | null; billing_date: string | null; monthly_premium: string | null;
  end_date: string | null; end_cause: string | null;
}

const INSURANCE_FACTS_SQL = `
  SELECT i.agreement_number, i.insurance_number, i.insured_pin, i.product_code, p.kind AS product_kind, i.start_date::text AS start_date,
         i.custody_account, i.end_date::text AS end_date, i.end_cause,
         p.min_fixed_charge::text AS min_fixed_charge, p.max_fixed_charge::text AS max_fixed_charge,
         p.min_capital_charge::text AS min_capital_charge, p.max_capital_charge::text AS max_capital_charge,
         p.min_monthly_premium::text AS min_monthly_premium, p.max_monthly_premium::text AS max_monthly_premium,
         p.max_extra_premium::text AS max_extra_premium,
         (SELECT min(u.paid_up_from)::text FROM insurance_paid_up u WHERE u.insurance_number = i.insurance_number) AS paid_up_from,
         b.event AS billing_event, b.effective_date::text AS billing_date,
         (SELECT r.monthly_amount::text FROM insurance_premiums r WHERE r.insurance_number = i.insurance_number
           ORDER BY r.effective_date DESC, r.id DESC LIMIT 1) AS monthly_premium
    FROM insurances i
    JOIN products p ON p.code = i.product_code
    LEFT JOIN LATERAL (SELECT e.event, e.effective_date FROM billing_events e WHERE e.insurance_number = i.insurance_number
                        ORDER BY e.effective_date DESC, e.id DESC LIMIT 1) b ON true`;

function toInsuranceFacts(row: InsuranceRow): InsuranceFacts {
  return {
    insuranceNumber: row.insurance_number,
    insuredPin: row.insured_pin,
    productCode: row.product_code,
    productKind: row.product_kind,
    startDate: row.start_date,
    custodyAccount: row.custody_account,
    minFixedCharge: row.min_fixed_charge,
    maxFixedCharge: row.max_fixed_charge,
    minCapitalCharge: row.min_capital_charge,
    maxCapitalCharge: row.max_capital_charge,
    minMonthlyPremium: row.min_monthly_premium,
    maxMonthlyPremium: row.max_monthly_premium,
    maxExtraPremium: row.max_extra_premium,
    paidUpFrom: row.paid_up_from,
    lastBillingEvent: row.billing_event && row.billing_date ? { event: row.billing_event, effectiveDate: row.billing_date } : null,
    monthlyPremium: row.monthly_premium,
    end: row.end_date && row.end_cause ? { lastDay: row.end_date, cause: row.end_cause } : null,
  };
}

/** The ISINs selectable in each of `productCodes`, by product. */
export async function findSelectableFunds(sql: Sql, productCodes: readonly string[]): Promise<Map<string, Set<string>>> {
  const { rows } = await sql.query<{ product_code: string; isin: string }>(
    'SELECT product_code, isin FROM product_funds WHERE product_code = ANY($1::text[])',
    [[...new Set(productCodes)]],
  );
  const byProduct = new Map<string, Set<string>>();
  for (const row of rows) {
    const set = byProduct.get(row.product_code) ?? new Set<string>();
    set.add(row.isin);
    byProduct.set(row.product_code, set);
  }
  return byProduct;
}

/** The agreement's category codes and cost-center codes. */
export async function findAgreementCodes(sql: Sql, agreementNumber: string): Promise<{ categories: Set<string>; costCenters: Set<string> }> {
  const { rows } = await sql.query<{ kind: 'category' | 'cost_center'; code: string }>(
    `SELECT 'category' AS kind, code FROM agreement_categories WHERE agreement_number = $1
     UNION ALL SELECT 'cost_center', code FROM agreement_cost_centers WHERE agreement_number = $1`,
    [agreementNumber],
  );
  return {
    categories: new Set(rows.filter((row) => row.kind === 'category').map((row) => row.code)),
    costCenters: new Set(rows.filter((row) => row.kind === 'cost_center').map((row) => row.code)),
  };
}

export interface NewFee {
  readonly insuranceNumber: string;
  readonly feeType: string;
  readonly value: string;
  readonly effectiveDate: string;
}

export function insertFees(sql: Sql, messageId: string, fees: readonly NewFee[]): Promise<void> {
  return fees.length === 0 ? Promise.resolve() : feeWrites(sql, { messageId, rows: fees });
}

/** What a coalesced write of one document carries: its message id and its rows. */
interface DocumentRows<Row> {
  readonly messageId: string;
  readonly rows: readonly Row[];
}

/** The rows of several documents in their order, each with its document's message id. */
function rowsOf<Row>(writes: readonly DocumentRows<Row>[]): { rows: Row[]; messageIds: string[] } {
  const rows: Row[] = [];
  const messageIds: string[] = [];
  for (const write of writes) {
    for (const row of write.rows) {
      rows.push(row);
      messageIds.push(write.messageId);
    }
  }
  return { rows, messageIds };
}

const feeWrites = coalesce(async (sql, writes: readonly DocumentRows<NewFee>[]) => {
  const { rows: fees, messageIds } = rowsOf(writes);
  await sql.query(
    `INSERT INTO insurance_fees (insurance_number, fee_type, value, effective_date, message_id)
     SELECT f.insurance_number, f.fee_type, f.value, f.effective_date, f.message_id
       FROM unnest($1::text[], $2::text[], $3::numeric[], $4::date[], $5::text[]) AS f(insurance_number, fee_type, value, effective_date, message_id)`,
    [fees.map((f) => f.insuranceNumber), fees.map((f) => f.feeType), fees.map((f) => f.value), fees.map((f) => f.effectiveDate), messageIds],
  );
  return writes.map(() => undefined);
});

/**
 * A dated row in insurance_premiums (PremiumAdjustment, and an Insurancepurchase's
 * first premium), never changed afterwards. The premium of an insurance on a date is its latest
 * row on or before it (the later-recorded row wins on the same date).
 */
export interface NewPremium {
  readonly insuranceNumber: string;
  readonly effectiveDate: string;
  /** Monthly amount in SEK, as a decimal string. */
  readonly monthlyAmount: string;
  readonly currency: 'SEK';
}

/** Records the premiums in one statement, in the document's order (so ids follow the items). */
export function insertPremiums(sql: Sql, messageId: string, premiums: readonly NewPremium[]): Promise<void> {
  return premiums.length === 0 ? Promise.resolve() : premiumWrites(sql, { messageId, rows: premiums });
}

const premiumWrites = coalesce(async (sql, writes: readonly DocumentRows<NewPremium>[]) => {
  const { rows: premiums, messageIds } = rowsOf(writes);
  await sql.query(
    `INSERT INTO insurance_premiums (insurance_number, effective_date, monthly_amount, currency, message_id)
     SELECT p.insurance_number, p.effective_date, p.monthly_amount, p.currency, p.message_id
       FROM unnest($1::text[], $2::date[], $3::numeric[], $4::text[], $5::text[])
            WITH ORDINALITY AS p(insurance_number, effective_date, monthly_amount, currency, message_id, ordinality)
      ORDER BY p.ordinality`,
    [premiums.map((p) => p.insuranceNumber), premiums.map((p) => p.effectiveDate), premiums.map((p) => p.monthlyAmount), premiums.map((p) => p.currency), messageIds],
  );
  return writes.map(() => undefined);
});

/**
 * One insurance_paid_up row per insurance made paid-up (fribrev) by PremiumEnded, or
 * bought for an employment that had already ended (Insurancepurchase). The row is the whole record: from paid_up_from no premium is billed and
 * the capital stays invested. The insurance row itself is not changed.
 */
export interface NewPaidUp {
  readonly insuranceNumber: string;
  readonly paidUpFrom: string;
}

/** Records the paid-up dates in one statement, in the document's order. */
export function insertPaidUp(sql: Sql, messageId: string, paidUp: readonly NewPaidUp[]): Promise<void> {
  return paidUp.length === 0 ? Promise.resolve() : paidUpWrites(sql, { messageId, rows: paidUp });
}

const paidUpWrites = coalesce(async (sql, writes: readonly DocumentRows<NewPaidUp>[]) => {
  const { rows: paidUp, messageIds } = rowsOf(writes);
  await sql.query(
    `INSERT INTO insurance_paid_up (insurance_number, paid_up_from, message_id)
     SELECT u.insurance_number, u.paid_up_from, u.message_id
       FROM unnest($1::text[], $2::date[], $3::text[]) WITH ORDINALITY AS u(insurance_number, paid_up_from, message_id, ordinality)
      ORDER BY u.ordinality`,
    [paidUp.map((u) => u.insuranceNumber), paidUp.map((u) => u.paidUpFrom), messageIds],
  );
  return writes.map(() => undefined);
});

export interface EmploymentFacts {
  readonly id: string;
  readonly startDate: string;
  endDate: string | null;
}

/** The employments under the agreement of each person among `pins`, latest start first. */
export async function findEmployments(sql: Sql, agreementNumber: string, pins: readonly string[]): Promise<Map<string, EmploymentFacts[]>> {
  const rows = await employmentsByPerson(sql, { agreementNumber, keys: pins });
  const byPerson = new Map<string, EmploymentFacts[]>();
  for (const row of rows) {
    const list = byPerson.get(row.pin) ?? [];
    list.push({ id: row.id, startDate: row.start_date, endDate: row.end_date });
    byPerson.set(row.pin, list);
  }
  return byPerson;
}

const employmentsByPerson = coalesce(async (sql, requests: readonly AgreementKeys[]) => {
  const { rows } = await sql.query<{ agreement_number: string; pin: string; id: string; start_date: string; end_date: string | null }>(
    `SELECT agreement_number, personal_identity_number AS pin, id::text AS id, start_date::text AS start_date, end_date::text AS end_date
       FROM employments WHERE (agreement_number, personal_identity_number) IN (SELECT * FROM unnest($1::text[], $2::text[]))
      ORDER BY start_date DESC`,
    pairsOf(requests),
  );
  return splitByRequest(requests, rows, (row) => row.agreement_number, (row) => row.pin);
});

export interface NewSalary {
  readonly employmentId: string;
  readonly effectiveDate: string;
  readonly annualSalary: string;
  readonly currency: string;
}

export function insertSalaries(sql: Sql, messageId: string, salaries: readonly NewSalary[]): Promise<void> {
  return salaries.length === 0 ? Promise.resolve() : salaryWrites(sql, { messageId, rows: salaries });
}

const salaryWrites = coalesce(async (sql, writes: readonly DocumentRows<NewSalary>[]) => {
  const { rows: salaries, messageIds } = rowsOf(writes);
  await sql.query(
    `INSERT INTO salaries (employment_id, effective_date, annual_salary, currency, message_id)
     SELECT s.employment_id, s.effective_date, s.annual_salary, s.currency, s.message_id
       FROM unnest($1::bigint[], $2::date[], $3::numeric[], $4::text[], $5::text[]) AS s(employment_id, effective_date, annual_salary, currency, message_id)`,
    [salaries.map((s) => s.employmentId), salaries.map((s) => s.effectiveDate), salaries.map((s) => s.annualSalary), salaries.map((s) => s.currency), messageIds],
  );
  return writes.map(() => undefined);
});

export interface EndedEmployment {
  readonly employmentId: string;
  readonly personalIdentityNumber: string;
  readonly endDate: string;
  readonly reason: string | null;
  readonly paidUpFrom: string;
}

/**
 * Ends the employments and makes each person's premium-paying insurances under the
 * agreement paid-up (fribrev) from the given day, skipping those already paid-up and
 * those that have ended (an ended insurance takes no more changes).
 */
export function endEmployments(sql: Sql, agreementNumber: string, messageId: string, ended: readonly EndedEmployment[]): Promise<void> {
  return ended.length === 0 ? Promise.resolve() : employmentEnds(sql, { agreementNumber, messageId, rows: ended });
}

const employmentEnds = coalesce(async (sql, writes: readonly (DocumentRows<EndedEmployment> & { readonly agreementNumber: string })[]) => {
  const { rows: ended, messageIds } = rowsOf(writes);
  const agreements = writes.flatMap((write) => write.rows.map(() => write.agreementNumber));
  await sql.query(
    `UPDATE employments e SET end_date = u.end_date, end_reason = u.reason, ended_by_message = u.message_id
       FROM unnest($1::bigint[], $2::date[], $3::text[], $4::text[]) AS u(id, end_date, reason, message_id)
      WHERE e.id = u.id`,
    [ended.map((e) => e.employmentId), ended.map((e) => e.endDate), ended.map((e) => e.reason), messageIds],
  );
  await sql.query(
    `INSERT INTO insurance_paid_up (insurance_number, paid_up_from, message_id)
     SELECT i.insurance_number, u.paid_up_from, u.message_id
       FROM unnest($1::text[], $2::text[], $3::date[], $4::text[]) AS u(agreement_number, pin, paid_up_from, message_id)
       JOIN insurances i ON i.insured_pin = u.pin AND i.agreement_number = u.agreement_number AND i.premium_paying AND i.end_date IS NULL
      WHERE NOT EXISTS (SELECT 1 FROM insurance_paid_up p WHERE p.insurance_number = i.insurance_number)
      ORDER BY i.insurance_number`,
    [agreements, ended.map((e) => e.personalIdentityNumber), ended.map((e) => e.paidUpFrom), messageIds],
  );
  return writes.map(() => undefined);
});

export interface NewAllocation {
  readonly insuranceNumber: string;
  readonly purpose: 'DistributionPlan' | 'Reallocation';
  readonly effectiveDate: string;
  readonly lines: readonly { readonly isin: string; readonly percent: string }[];
}

/** Records fund allocations and their lines: two statements whatever their number. */
export async function insertAllocations(sql: Sql, messageId: string, allocations: readonly NewAllocation[]): Promise<void> {
  if (allocations.length === 0) return;
  const { rows } = await sql.query<{ id: string }>(
    `WITH input AS (
       SELECT a.insurance_number, a.purpose, a.effective_date, a.ordinality
         FROM unnest($1::text[], $2::text[], $3::date[]) WITH ORDINALITY AS a(insurance_number, purpose, effective_date, ordinality))
     INSERT INTO fund_allocations (insurance_number, purpose, effective_date, message_id)
     SELECT insurance_number, purpose, effective_date, $4 FROM input ORDER BY ordinality
     RETURNING id::text AS id`,
    [allocations.map((a) => a.insuranceNumber), allocations.map((a) => a.purpose), allocations.map((a) => a.effectiveDate), messageId],
  );
  // The ids are drawn in the insert's order, which is the input's (ORDER BY ordinality): ascending ids match the input.
  const ids = rows.map((row) => row.id).sort((a, b) => Number(BigInt(a) - BigInt(b)));
  const lineAllocation: string[] = [];
  const lineIsin: string[] = [];
  const linePercent: string[] = [];
  allocations.forEach((allocation, index) => {
    for (const line of allocation.lines) {
      lineAllocation.push(ids[index] as string);
      lineIsin.push(line.isin);
      linePercent.push(line.percent);
    }
  });
  await sql.query(
    `INSERT INTO fund_allocation_lines (allocation_id, isin, percent, message_id)
     SELECT l.allocation_id, l.isin, l.percent, $4 FROM unnest($1::bigint[], $2::text[], $3::numeric[]) AS l(allocation_id, isin, percent)`,
    [lineAllocation, lineIsin, linePercent, messageId],
  );
}
