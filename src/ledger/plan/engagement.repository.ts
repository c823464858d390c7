import type { IsoDate } from '../../core/calendar-date.ts';
import type { Engagement, EngagementInsurance, EngagementRole } from '../../core/engagement.ts';
import { insuranceStatus } from '../../core/insurance-status.ts';
import { payoutCanBegin } from '../../core/payout-start.ts';
import type { Sql } from '../database.ts';
import type { KnownParties } from './insurance-view.repository.ts';

/**
 * Reads a customer's engagement (src/core/engagement.ts) for a direct query: every
 * insurance where the customer is the policyholder or the insured, in one statement —
 * each insurance's lists (premiums, coverages, payouts, charges) gathered as JSON beside
 * it through their tables' indexes by insurance number. Access is decided before this
 * is called (src/core/direct-query.policy.ts); this reads whatever it is asked.
 */

type Row = Omit<EngagementInsurance, 'status' | 'roles' | 'payout' | 'custody' | 'charges'> & {
  readonly custody: (Omit<NonNullable<EngagementInsurance['custody']>, 'custodianName'>) | null;
  readonly payoutFacts: { readonly payoutAge: number; readonly agreedFrom: IsoDate | null };
  readonly payout: Omit<EngagementInsurance['payout'], 'canBegin'>;
  readonly charges: Omit<EngagementInsurance['charges'], 'total'> & { readonly total: string | null };
  readonly awaitingTransferMoney: boolean;
};

const ENGAGEMENT_SQL = `
SELECT jsonb_build_object(
  'insuranceNumber', i.insurance_number,
  'policyholder', i.policyholder,
  'insured', i.insured_pin,
  'product', jsonb_build_object('code', p.code, 'name', p.name),
  'insuranceType', p.kind,
  'startDate', i.start_date::text,
  'awaitingTransferMoney', EXISTS (SELECT 1 FROM transfer_leaflets_in t WHERE t.insurance_number = i.insurance_number AND t.money_received_on IS NULL),
  'end', CASE WHEN i.end_date IS NOT NULL THEN jsonb_build_object('lastDay', i.end_date::text, 'cause', i.end_cause) END,
  'custody', CASE WHEN i.custody_account IS NOT NULL THEN jsonb_build_object(
     'accountNumber', i.custody_account, 'custodianId', a.custodian_id,
     'latestValue', (SELECT jsonb_build_object('asOf', v.as_of::text, 'totalValue', v.total_value::text) FROM custody_valuations v
                      WHERE v.account_number = i.custody_account ORDER BY v.as_of DESC LIMIT 1)) END,
  'premiums', jsonb_build_object(
     'monthlyAmount', CASE WHEN (i.end_date IS NULL OR i.end_date >= $2::date)
                            AND NOT EXISTS (SELECT 1 FROM insurance_paid_up u WHERE u.insurance_number = i.insurance_number AND u.paid_up_from <= $2::date) THEN
       (SELECT r.monthly_amount::text FROM insurance_premiums r WHERE r.insurance_number = i.insurance_number AND r.effective_date <= $2::date
         ORDER BY r.effective_date DESC, r.id DESC LIMIT 1) END,
     'history', coalesce((SELECT jsonb_agg(jsonb_build_object('from', r.effective_date::text, 'monthlyAmount', r.monthly_amount::text) ORDER BY r.effective_date, r.id)
                            FROM insurance_premiums r WHERE r.insurance_number = i.insurance_number), '[]'),
     'paidUpFrom', (SELECT min(u.paid_up_from)::text FROM insurance_paid_up u WHERE u.insurance_number = i.insurance_number)),
  'coverages', coalesce((SELECT jsonb_agg(jsonb_build_object('type', c.coverage_type, 'from', c.from_date::text) ORDER BY c.from_date, c.coverage_type)
                           FROM insurance_coverages c WHERE c.insurance_number = i.insurance_number), '[]'),
  'payoutFacts', jsonb_build_object('payoutAge', p.payout_age, 'agreedFrom', i.payout_from::text),
  'payout', jsonb_build_object(
     'plan', (SELECT jsonb_build_object('startMonth', o.start_month, 'months', o.months, 'monthlyAmount', o.monthly_amount::text, 'status', o.status,
                                        'completedMonth', o.completed_month)
                FROM payouts o WHERE o.insurance_number = i.insurance_number),
     'payouts', coalesce((SELECT jsonb_agg(jsonb_build_object('month', po.month, 'installment', po.installment, 'amount', po.amount::text,
                                                             'payBy', po.pay_by::text, 'final', po.final) ORDER BY po.month)
                            FROM payout_orders po WHERE po.insurance_number = i.insurance_number), '[]')),
  'beneficiary', (SELECT CASE WHEN ap.body->'beneficiary'->>'choice' IN ('standard', 'named') THEN jsonb_build_object(
                           'choice', ap.body->'beneficiary'->>'choice',
                           'names', coalesce(ap.body->'beneficiary'->'names', '[]'::jsonb)) END
                    FROM applications ap WHERE ap.insurance_number = i.insurance_number AND ap.kind = 'insurance' LIMIT 1),
  'charges', jsonb_build_object(
     'from', ($2::date - interval '1 year')::date::text,
     'to', $2::text,
     'total', (SELECT sum(l.amount)::text FROM debit_lines l
                WHERE l.insurance_number = i.insurance_number AND l.charge <> 'SellOrder' AND l.period_to >= ($2::date - interval '1 year')::date),
     'lines', coalesce((SELECT jsonb_agg(jsonb_build_object('charge', l.charge, 'basis', l.basis, 'amount', l.amount::text,
                                                           'periodFrom', l.period_from::text, 'periodTo', l.period_to::text)
                                         ORDER BY l.period_from, l.charge, l.basis, l.run_key)
                          FROM debit_lines l
                         WHERE l.insurance_number = i.insurance_number AND l.charge <> 'SellOrder' AND l.period_to >= ($2::date - interval '1 year')::date), '[]'))
) AS insurance
  FROM insurances i
  JOIN products p ON p.code = i.product_code
  LEFT JOIN custody_accounts a ON a.account_number = i.custody_account
 WHERE i.policyholder = $1 OR i.insured_pin = $1
 ORDER BY i.insurance_number`;

/** The customer's engagement on `today` (Stockholm); no insurances when the ledger has none on the customer. */
export async function readEngagement(sql: Sql, customerId: string, today: IsoDate, parties: KnownParties): Promise<Engagement> {
  const { rows } = await sql.query<{ insurance: Row | string }>(ENGAGEMENT_SQL, [customerId, today]);
  const custodianNames = new Map(parties.counterparties.map((party) => [party.id, party.name]));
  const insurances = rows.map(({ insurance }) => {
    const row = typeof insurance === 'string' ? JSON.parse(insurance) as Row : insurance;
    const { payoutFacts, payout, custody, charges, awaitingTransferMoney, ...rest } = row;
    const roles: EngagementRole[] = [];
    if (row.policyholder === customerId) roles.push('policyholder');
    if (row.insured === customerId) roles.push('insured');
    return {
      ...rest,
      roles,
      status: insuranceStatus({ startDate: row.startDate, endDate: row.end?.lastDay ?? null, paidUpFrom: row.premiums.paidUpFrom, inPayout: payout.plan !== null, awaitingTransferMoney }, today),
      custody: custody ? { ...custody, custodianName: custody.custodianId ? custodianNames.get(custody.custodianId) ?? null : null } : null,
      payout: { canBegin: payoutCanBegin({ insuredPin: row.insured, payoutAge: payoutFacts.payoutAge, agreedFrom: payoutFacts.agreedFrom }), ...payout },
      charges: { ...charges, total: charges.total ?? '0.00' },
    } satisfies EngagementInsurance;
  });
  return { customerId, asOf: today, insurances };
}
