import type { IsoDate } from '../../core/calendar-date.ts';
import { insuranceStatus, type InsuranceStatus } from '../../core/insurance-status.ts';
import { payoutCanBegin } from '../../core/payout-start.ts';
import type { Sql } from '../database.ts';

/**
 * Everything staff look up about one insurance, whichever way it came — bought under an
 * employer's agreement, issued from an application through the REST API (no agreement),
 * or the demo's — for `depot-gateway insurance`, GET /api/insurances/:number and the
 * console's insurance page: who holds it and who is insured, its product and coverages,
 * where its custody account is, whether and how it ended, its payout, its withdrawals
 * and payout orders, and every debit line the runs made for it.
 *
 * One statement: the insurance row and each of its lists gathered as JSON beside it
 * (each list read through its table's index by insurance number), so a page costs one
 * round trip whatever the history. Personal identity numbers are given in full: the
 * staff API keeps them; the console masks them on the page.
 */
export interface InsuranceView {
  readonly insuranceNumber: string;
  /** Where it stands today (src/core/insurance-status.ts). */
  readonly status: InsuranceStatus;
  readonly startDate: IsoDate;
  /** Its end once recorded: the last day in force, why, who recorded it and when. */
  readonly end: { readonly lastDay: IsoDate; readonly cause: string; readonly recordedBy: string; readonly recordedAt: string | null } | null;
  /** The employer's agreement it belongs to; null for an individual insurance (an application through the REST API). */
  readonly agreementNumber: string | null;
  /** The message or application that created it; null for one that was seeded. */
  readonly createdBy: string | null;
  /** A personal identity number or an organisation number, with the name the ledger or the configuration knows. */
  readonly policyholder: { readonly id: string | null; readonly name: string | null };
  readonly insured: { readonly personalIdentityNumber: string; readonly name: string | null };
  readonly product: { readonly code: string; readonly name: string; readonly kind: 'P' | 'T' | 'K' };
  /** The monthly premium in force today (null: none recorded, paid-up, or ended), and the day it became (or becomes) paid-up. */
  readonly premium: { readonly monthlyAmount: string | null; readonly paidUpFrom: IsoDate | null };
  readonly coverages: readonly { readonly type: string; readonly from: IsoDate }[];
  readonly custody: {
    readonly accountNumber: string;
    readonly custodianId: string | null;
    readonly custodianName: string | null;
    readonly openedOn: IsoDate | null;
    readonly closedOn: IsoDate | null;
    /** The latest value its custodian reported. */
    readonly latestValue: { readonly asOf: IsoDate; readonly totalValue: string } | null;
  } | null;
  readonly payout: {
    /** The day payout can begin (the agreed date, else the insured's birthday at the product's payout age). */
    readonly canBegin: IsoDate;
    /** The payout the insured started, once registered. */
    readonly registered: {
      readonly startMonth: string; readonly months: number | null; readonly monthlyAmount: string | null; readonly status: string;
      readonly account: string | null; readonly registeredBy: string | null; readonly registeredAt: string; readonly completedMonth: string | null;
    } | null;
    readonly orders: readonly {
      readonly month: string; readonly installment: number; readonly amount: string; readonly sellBy: IsoDate; readonly payBy: IsoDate;
      readonly final: boolean; readonly runKey: string;
    }[];
  };
  readonly deathBenefit: {
    readonly deathDate: IsoDate; readonly custodyValue: string | null; readonly valueAsOf: IsoDate | null; readonly insurerAmount: string | null;
    readonly beneficiaryName: string | null; readonly beneficiaryAccount: string | null; readonly orderedIn: string | null;
  } | null;
  readonly withdrawals: readonly {
    readonly requestId: string; readonly status: string; readonly amount: string; readonly account: string; readonly bankName: string;
    readonly requestedAt: string; readonly requestedBy: string; readonly decision: string | null; readonly decidedBy: string | null;
    readonly orderedOn: IsoDate | null; readonly runKey: string | null; readonly deliveredAt: string | null;
  }[];
  readonly debitLines: readonly {
    readonly runKey: string; readonly custodianId: string; readonly accountNumber: string; readonly charge: string; readonly basis: string | null;
    readonly amount: string; readonly periodFrom: IsoDate; readonly periodTo: IsoDate;
  }[];
}

/** Names the configuration gives: counterparties by id (custodians) and by organisation number (employers). */
export interface KnownParties {
  readonly counterparties: readonly { readonly id: string; readonly name: string; readonly organisationNumber: string }[];
}

type ViewRow = Omit<InsuranceView, 'status' | 'payout' | 'policyholder' | 'custody'> & {
  readonly policyholder: { readonly id: string | null; readonly name: string | null };
  readonly custody: (Omit<NonNullable<InsuranceView['custody']>, 'custodianName'>) | null;
  readonly payoutFacts: { readonly payoutAge: number; readonly agreedFrom: IsoDate | null };
  readonly payout: Omit<InsuranceView['payout'], 'canBegin'>;
  readonly awaitingTransferMoney: boolean;
};

const VIEW_SQL = `
SELECT jsonb_build_object(
  'insuranceNumber', i.insurance_number,
  'startDate', i.start_date::text,
  'awaitingTransferMoney', EXISTS (SELECT 1 FROM transfer_leaflets_in t WHERE t.insurance_number = i.insurance_number AND t.money_received_on IS NULL),
  'end', CASE WHEN i.end_date IS NOT NULL THEN jsonb_build_object(
           'lastDay', i.end_date::text, 'cause', i.end_cause, 'recordedBy', i.ended_by, 'recordedAt', i.end_recorded_at) END,
  'agreementNumber', i.agreement_number,
  'createdBy', i.created_by_message,
  'policyholder', jsonb_build_object('id', i.policyholder, 'name', holder.name),
  'insured', jsonb_build_object('personalIdentityNumber', i.insured_pin, 'name', insured.name),
  'product', jsonb_build_object('code', p.code, 'name', p.name, 'kind', p.kind),
  'premium', jsonb_build_object(
     'monthlyAmount', CASE WHEN (i.end_date IS NULL OR i.end_date >= $2::date)
                            AND NOT EXISTS (SELECT 1 FROM insurance_paid_up u WHERE u.insurance_number = i.insurance_number AND u.paid_up_from <= $2::date) THEN
       (SELECT r.monthly_amount::text FROM insurance_premiums r WHERE r.insurance_number = i.insurance_number AND r.effective_date <= $2::date
         ORDER BY r.effective_date DESC, r.id DESC LIMIT 1) END,
     'paidUpFrom', (SELECT min(u.paid_up_from)::text FROM insurance_paid_up u WHERE u.insurance_number = i.insurance_number)),
  'coverages', coalesce((SELECT jsonb_agg(jsonb_build_object('type', c.coverage_type, 'from', c.from_date::text) ORDER BY c.from_date, c.coverage_type)
                           FROM insurance_coverages c WHERE c.insurance_number = i.insurance_number), '[]'),
  'custody', CASE WHEN i.custody_account IS NOT NULL THEN jsonb_build_object(
     'accountNumber', i.custody_account, 'custodianId', a.custodian_id, 'openedOn', a.opened_on::text, 'closedOn', a.closed_on::text,
     'latestValue', (SELECT jsonb_build_object('asOf', v.as_of::text, 'totalValue', v.total_value::text) FROM custody_valuations v
                      WHERE v.account_number = i.custody_account ORDER BY v.as_of DESC LIMIT 1)) END,
  'payoutFacts', jsonb_build_object('payoutAge', p.payout_age, 'agreedFrom', i.payout_from::text),
  'payout', jsonb_build_object(
     'registered', (SELECT jsonb_build_object('startMonth', o.start_month, 'months', o.months, 'monthlyAmount', o.monthly_amount::text, 'status', o.status,
                                              'account', o.withdrawal_account, 'registeredBy', o.registered_by, 'registeredAt', o.created_at,
                                              'completedMonth', o.completed_month)
                      FROM payouts o WHERE o.insurance_number = i.insurance_number),
     'orders', coalesce((SELECT jsonb_agg(jsonb_build_object('month', po.month, 'installment', po.installment, 'amount', po.amount::text,
                                                            'sellBy', po.sell_by::text, 'payBy', po.pay_by::text, 'final', po.final, 'runKey', po.run_key)
                                          ORDER BY po.month)
                           FROM payout_orders po WHERE po.insurance_number = i.insurance_number), '[]')),
  'deathBenefit', (SELECT jsonb_build_object('deathDate', d.death_date::text, 'custodyValue', d.custody_value::text, 'valueAsOf', d.value_as_of::text,
                                             'insurerAmount', d.insurer_amount::text, 'beneficiaryName', d.beneficiary_name,
                                             'beneficiaryAccount', d.beneficiary_account, 'orderedIn', d.run_key)
                     FROM death_benefits d WHERE d.insurance_number = i.insurance_number),
  'withdrawals', coalesce((SELECT jsonb_agg(jsonb_build_object(
                              'requestId', w.request_id, 'status', w.status, 'amount', w.amount::text, 'account', w.account_digits, 'bankName', w.bank_name,
                              'requestedAt', w.requested_at, 'requestedBy', w.requested_by, 'decision', w.decision, 'decidedBy', w.decided_by,
                              'orderedOn', w.ordered_on::text, 'runKey', w.run_key, 'deliveredAt', od.delivered_at)
                            ORDER BY w.requested_at, w.request_id)
                             FROM withdrawal_requests w
                             LEFT JOIN debit_runs dr ON dr.run_key = w.run_key AND dr.custodian_id = w.custodian_id
                             LEFT JOIN outgoing_documents od ON od.document_id = dr.document_id
                            WHERE w.insurance_number = i.insurance_number), '[]'),
  'debitLines', coalesce((SELECT jsonb_agg(jsonb_build_object(
                             'runKey', l.run_key, 'custodianId', l.custodian_id, 'accountNumber', l.account_number, 'charge', l.charge, 'basis', l.basis,
                             'amount', l.amount::text, 'periodFrom', l.period_from::text, 'periodTo', l.period_to::text)
                           ORDER BY l.period_from, l.run_key, l.charge, l.basis)
                            FROM debit_lines l WHERE l.insurance_number = i.insurance_number), '[]')
) AS view
  FROM insurances i
  JOIN products p ON p.code = i.product_code
  LEFT JOIN persons insured ON insured.personal_identity_number = i.insured_pin
  LEFT JOIN persons holder ON holder.personal_identity_number = i.policyholder
  LEFT JOIN custody_accounts a ON a.account_number = i.custody_account
 WHERE i.insurance_number = $1`;

/** The insurance as staff see it on `today` (Stockholm), or undefined when there is no such insurance. */
export async function findInsuranceView(sql: Sql, insuranceNumber: string, today: IsoDate, parties: KnownParties): Promise<InsuranceView | undefined> {
  const { rows } = await sql.query<{ view: ViewRow }>(VIEW_SQL, [insuranceNumber, today]);
  const row = rows[0]?.view;
  if (!row) return undefined;
  const { insuranceNumber: number, payoutFacts, payout, custody, policyholder, awaitingTransferMoney, ...rest } = row;
  const byId = new Map(parties.counterparties.map((party) => [party.id, party.name]));
  const byOrganisation = new Map(parties.counterparties.map((party) => [party.organisationNumber, party.name]));
  return {
    insuranceNumber: number,
    status: insuranceStatus({ startDate: row.startDate, endDate: row.end?.lastDay ?? null, paidUpFrom: row.premium.paidUpFrom, inPayout: payout.registered !== null, awaitingTransferMoney }, today),
    ...rest,
    policyholder: { id: policyholder.id, name: policyholder.name ?? (policyholder.id ? byOrganisation.get(policyholder.id) ?? null : null) },
    custody: custody ? { ...custody, custodianName: custody.custodianId ? byId.get(custody.custodianId) ?? null : null } : null,
    payout: {
      canBegin: payoutCanBegin({ insuredPin: row.insured.personalIdentityNumber, payoutAge: payoutFacts.payoutAge, agreedFrom: payoutFacts.agreedFrom }),
      ...payout,
    },
  };
}
