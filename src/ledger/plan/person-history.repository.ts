import type { Sql } from '../database.ts';
import type { InsuranceHistory, PersonHistory } from '../../core/person-history.ts';

/**
 * Reads a person's whole plan history under an agreement: the employment (the latest
 * one when there were several), its salary, category and cost-center rows, and per
 * insurance its end (when recorded), premiums, fees, billing events, extra premiums,
 * fund allocations and transfers — every list in effective-date order, ties in the
 * order recorded.
 * Returns undefined when the person has neither an employment nor an insurance there.
 */
export async function readPersonHistory(sql: Sql, agreementNumber: string, pin: string): Promise<PersonHistory | undefined> {
  const { rows: employments } = await sql.query<{ id: string; start_date: string; end_date: string | null; end_reason: string | null }>(
    `SELECT id::text, start_date::text, end_date::text, end_reason FROM employments
      WHERE agreement_number = $1 AND personal_identity_number = $2 ORDER BY start_date DESC LIMIT 1`,
    [agreementNumber, pin],
  );
  const employment = employments[0];
  const employmentRows = async <T>(query: string): Promise<T[]> => (employment ? (await sql.query<T & object>(query, [employment.id])).rows : []);
  const salaries = await employmentRows<{ effectiveDate: string; annualSalary: string }>(
    `SELECT effective_date::text AS "effectiveDate", annual_salary::text AS "annualSalary" FROM salaries WHERE employment_id = $1 ORDER BY effective_date, id`,
  );
  const categories = await employmentRows<{ effectiveDate: string; categoryCode: string }>(
    `SELECT effective_date::text AS "effectiveDate", category_code AS "categoryCode" FROM employment_categories WHERE employment_id = $1 ORDER BY effective_date, id`,
  );
  const costCenters = await employmentRows<{ effectiveDate: string; costCenter: string }>(
    `SELECT effective_date::text AS "effectiveDate", cost_center AS "costCenter" FROM employment_cost_centers WHERE employment_id = $1 ORDER BY effective_date, id`,
  );
  const insurances = await readInsurances(sql, agreementNumber, pin);
  if (!employment && insurances.length === 0) return undefined;
  return {
    agreementNumber,
    personalIdentityNumber: pin,
    employment: employment ? { startDate: employment.start_date, endDate: employment.end_date, endReason: employment.end_reason } : null,
    salaries,
    categories,
    costCenters,
    insurances,
  };
}

async function readInsurances(sql: Sql, agreementNumber: string, pin: string): Promise<InsuranceHistory[]> {
  const { rows } = await sql.query<{ insurance: InsuranceHistory }>(
    `SELECT jsonb_build_object(
        'insuranceNumber', i.insurance_number, 'productCode', i.product_code, 'startDate', i.start_date::text,
        'paidUpFrom', (SELECT min(u.paid_up_from)::text FROM insurance_paid_up u WHERE u.insurance_number = i.insurance_number),
        'end', CASE WHEN i.end_date IS NOT NULL THEN jsonb_build_object('lastDay', i.end_date::text, 'cause', i.end_cause) END,
        'premiums', coalesce((SELECT jsonb_agg(jsonb_build_object('effectiveDate', r.effective_date::text, 'monthlyAmount', r.monthly_amount::text)
                                                ORDER BY r.effective_date, r.id) FROM insurance_premiums r WHERE r.insurance_number = i.insurance_number), '[]'),
        'fees', coalesce((SELECT jsonb_agg(jsonb_build_object('effectiveDate', f.effective_date::text, 'feeType', f.fee_type, 'value', f.value::text)
                                            ORDER BY f.effective_date, f.id) FROM insurance_fees f WHERE f.insurance_number = i.insurance_number), '[]'),
        'billing', coalesce((SELECT jsonb_agg(jsonb_build_object('effectiveDate', b.effective_date::text, 'event', b.event, 'reason', b.reason)
                                               ORDER BY b.effective_date, b.id) FROM billing_events b WHERE b.insurance_number = i.insurance_number), '[]'),
        'extraPremiums', coalesce((SELECT jsonb_agg(jsonb_build_object('invoiceNumber', x.invoice_number, 'amount', x.amount::text, 'dueDate', x.due_date::text)
                                                     ORDER BY x.due_date, x.id) FROM extra_premiums x WHERE x.insurance_number = i.insurance_number), '[]'),
        'allocations', coalesce((SELECT jsonb_agg(jsonb_build_object('effectiveDate', a.effective_date::text, 'purpose', a.purpose, 'funds',
                                    (SELECT jsonb_agg(jsonb_build_object('isin', l.isin, 'percent', trim_scale(l.percent)::text) ORDER BY l.isin)
                                       FROM fund_allocation_lines l WHERE l.allocation_id = a.id))
                                   ORDER BY a.effective_date, a.id) FROM fund_allocations a WHERE a.insurance_number = i.insurance_number), '[]'),
        'transfers', coalesce((SELECT jsonb_agg(jsonb_build_object('effectiveDate', t.effective_date::text, 'fromProductCode', t.from_product_code,
                                                                   'toProductCode', t.to_product_code) ORDER BY t.effective_date, t.id)
                                 FROM insurance_transfers t WHERE t.insurance_number = i.insurance_number), '[]')
      ) AS insurance
       FROM insurances i WHERE i.agreement_number = $1 AND i.insured_pin = $2 ORDER BY i.insurance_number`,
    [agreementNumber, pin],
  );
  return rows.map((row) => row.insurance);
}
