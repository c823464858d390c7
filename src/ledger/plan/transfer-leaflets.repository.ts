import type { IsoDate } from '../../core/calendar-date.ts';
import type { BeneficiaryChoice, TransferLeaflet } from '../../core/transfer-leaflet.ts';
import type { ProductKind } from '../../core/transfer.rules.ts';
import type { Sql } from '../database.ts';
import { drawInsuranceNumbers } from './insurance-purchase.repository.ts';

/**
 * The ledger side of transfer leaflets (migration 0046): the facts a leaflet for an
 * insurance of ours is written from, the leaflets sent and received, and the insurance a
 * received leaflet opens. Every writer runs in its caller's transaction: a leaflet sent
 * is recorded with the insurance's end, a leaflet received with its message's response.
 */

/** What the leaflet of an insurance ending on `lastDay` is written from. */
export interface LeafletFacts {
  readonly insuranceNumber: string;
  readonly type: ProductKind;
  readonly startDate: IsoDate;
  readonly policyholder: string | null;
  readonly insured: string;
  readonly payoutAge: number;
  readonly agreedPayoutFrom: IsoDate | null;
  readonly repaymentProtection: boolean;
  readonly beneficiary: { readonly choice: BeneficiaryChoice; readonly names: readonly string[] } | null;
  /** The custody account's total value last reported on or before the last day. */
  readonly value: { readonly amount: string; readonly valueDate: IsoDate } | null;
}

export async function readLeafletFacts(sql: Sql, insuranceNumber: string, lastDay: IsoDate): Promise<LeafletFacts | undefined> {
  const { rows } = await sql.query<{ facts: LeafletFacts | string }>(
    `SELECT jsonb_build_object(
       'insuranceNumber', i.insurance_number, 'type', p.kind, 'startDate', i.start_date::text,
       'policyholder', i.policyholder, 'insured', i.insured_pin, 'payoutAge', p.payout_age, 'agreedPayoutFrom', i.payout_from::text,
       'repaymentProtection', EXISTS (SELECT 1 FROM insurance_coverages c
                                       WHERE c.insurance_number = i.insurance_number AND c.coverage_type = 'repaymentProtection' AND c.from_date <= $2::date),
       'beneficiary', (SELECT CASE WHEN ap.body->'beneficiary'->>'choice' IN ('standard', 'named') THEN jsonb_build_object(
                                'choice', ap.body->'beneficiary'->>'choice', 'names', coalesce(ap.body->'beneficiary'->'names', '[]'::jsonb)) END
                         FROM applications ap WHERE ap.insurance_number = i.insurance_number AND ap.kind = 'insurance' LIMIT 1),
       'value', (SELECT jsonb_build_object('amount', v.total_value::text, 'valueDate', v.as_of::text) FROM custody_valuations v
                  WHERE v.account_number = i.custody_account AND v.as_of <= $2::date ORDER BY v.as_of DESC LIMIT 1)
     ) AS facts
       FROM insurances i JOIN products p ON p.code = i.product_code
      WHERE i.insurance_number = $1`,
    [insuranceNumber, lastDay],
  );
  const facts = rows[0]?.facts;
  return facts === undefined ? undefined : typeof facts === 'string' ? JSON.parse(facts) as LeafletFacts : facts;
}

/** A leaflet sent: its outgoing document (delivered by the deliver stage) and its row. */
export async function insertOutgoingLeaflet(
  sql: Sql,
  input: { leaflet: TransferLeaflet; receivingInsurerId: string; documentId: string; fileName: string; body: string; createdBy: string; now: Date },
): Promise<void> {
  const { leaflet } = input;
  await sql.query(
    `INSERT INTO outgoing_documents (document_id, counterparty_id, document_type, file_name, body, created_at) VALUES ($1, $2, 'TransferLeaflet', $3, $4, $5)`,
    [input.documentId, input.receivingInsurerId, input.fileName, input.body, input.now],
  );
  await sql.query(
    `INSERT INTO transfer_leaflets_out (insurance_number, receiving_insurer, document_id, value, value_date, leaflet, created_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8)`,
    [leaflet.insurance.insuranceNumber, input.receivingInsurerId, input.documentId, leaflet.value.amount, leaflet.value.valueDate, JSON.stringify(leaflet), input.createdBy, input.now],
  );
}

/** The code of the product a transfer in of `type` is received in: the first open for subscription, by code; undefined when none is. */
export async function findReceivingProduct(sql: Sql, type: ProductKind): Promise<string | undefined> {
  const { rows } = await sql.query<{ code: string }>('SELECT code FROM products WHERE kind = $1 AND open_for_subscription ORDER BY code LIMIT 1', [type]);
  return rows[0]?.code;
}

/** Our insurance registered for the releasing insurer's insurance, when there is one. */
export async function findTransferIn(sql: Sql, releasingInsurer: string, releasingInsuranceNumber: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ insurance_number: string }>(
    'SELECT insurance_number FROM transfer_leaflets_in WHERE releasing_insurer = $1 AND releasing_insurance_number = $2',
    [releasingInsurer, releasingInsuranceNumber],
  );
  return rows[0]?.insurance_number;
}

/**
 * Registers a transfer in: a new insurance in `productCode` from `startDate`, paying no
 * premium, with no custody account until the money arrives, its repayment protection and
 * payout start as the leaflet gives them, and the leaflet's row that makes it await the
 * money. Gives the new insurance's number.
 */
export async function registerTransferIn(
  sql: Sql,
  input: { messageId: string; counterpartyId: string; leaflet: TransferLeaflet; productCode: string; startDate: IsoDate; payoutFrom: IsoDate; now: Date },
): Promise<string> {
  const { leaflet } = input;
  const [insuranceNumber] = await drawInsuranceNumbers(sql, 1);
  await sql.query('INSERT INTO persons (personal_identity_number) VALUES ($1) ON CONFLICT DO NOTHING', [leaflet.insurance.insured]);
  await sql.query(
    `INSERT INTO insurances (insurance_number, agreement_number, insured_pin, product_code, start_date, premium_paying, policyholder, custody_account, created_by_message, payout_from)
     VALUES ($1, NULL, $2, $3, $4, false, $5, NULL, $6, $7)`,
    [insuranceNumber, leaflet.insurance.insured, input.productCode, input.startDate, leaflet.insurance.policyholder, input.messageId, input.payoutFrom],
  );
  if (leaflet.conditions.repaymentProtection) {
    await sql.query(
      `INSERT INTO insurance_coverages (insurance_number, coverage_type, from_date, message_id) VALUES ($1, 'repaymentProtection', $2, $3)`,
      [insuranceNumber, input.startDate, input.messageId],
    );
  }
  await sql.query(
    `INSERT INTO transfer_leaflets_in (message_id, counterparty_id, releasing_insurer, releasing_insurance_number, releasing_reference, insurance_number,
                                       value, value_date, leaflet, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10)`,
    [input.messageId, input.counterpartyId, leaflet.releasingInsurer, leaflet.insurance.insuranceNumber, leaflet.releasingReference, insuranceNumber,
      leaflet.value.amount, leaflet.value.valueDate, JSON.stringify(leaflet), input.now],
  );
  return insuranceNumber!;
}

/** A leaflet as staff see it listed. */
export interface LeafletRow {
  readonly direction: 'out' | 'in';
  /** Our insurance: the one that moved out, or the one registered in. */
  readonly insuranceNumber: string;
  /** The other insurer's counterparty id. */
  readonly counterpartyId: string;
  readonly reference: string;
  readonly insuranceType: ProductKind;
  readonly value: string;
  readonly valueDate: IsoDate;
  readonly createdAt: Date;
  /** Out: when delivered (null: not yet). In: the message it came in. */
  readonly deliveredAt: Date | null;
  readonly documentId: string;
  /** In: whether the money is still awaited. */
  readonly awaitingMoney: boolean;
}

/** The latest leaflets sent and received, newest first. */
export async function listTransferLeaflets(sql: Sql, limit = 200): Promise<LeafletRow[]> {
  const { rows } = await sql.query<LeafletRow>(
    `SELECT * FROM (
       SELECT 'out' AS direction, o.insurance_number AS "insuranceNumber", o.receiving_insurer AS "counterpartyId",
              o.leaflet->>'releasingReference' AS reference, o.leaflet->'insurance'->>'insuranceType' AS "insuranceType",
              o.value::text AS value, o.value_date::text AS "valueDate", o.created_at AS "createdAt", d.delivered_at AS "deliveredAt",
              o.document_id AS "documentId", false AS "awaitingMoney"
         FROM transfer_leaflets_out o JOIN outgoing_documents d ON d.document_id = o.document_id
       UNION ALL
       SELECT 'in', t.insurance_number, t.counterparty_id, t.releasing_reference, t.leaflet->'insurance'->>'insuranceType',
              t.value::text, t.value_date::text, t.created_at, NULL, t.message_id, t.money_received_on IS NULL
         FROM transfer_leaflets_in t) AS leaflets
     ORDER BY "createdAt" DESC, "insuranceNumber" LIMIT $1`,
    [limit],
  );
  return rows.map((row) => ({ ...row, createdAt: new Date(row.createdAt), deliveredAt: row.deliveredAt === null ? null : new Date(row.deliveredAt) }));
}

/** The leaflet sent for an insurance, or received as message `id`: the stored leaflet, for its PDF. */
export async function findLeaflet(sql: Sql, direction: 'out' | 'in', id: string): Promise<TransferLeaflet | undefined> {
  const query = direction === 'out'
    ? 'SELECT leaflet FROM transfer_leaflets_out WHERE insurance_number = $1'
    : 'SELECT leaflet FROM transfer_leaflets_in WHERE message_id = $1';
  const { rows } = await sql.query<{ leaflet: TransferLeaflet | string }>(query, [id]);
  const leaflet = rows[0]?.leaflet;
  return leaflet === undefined ? undefined : typeof leaflet === 'string' ? JSON.parse(leaflet) as TransferLeaflet : leaflet;
}

/** What recording a transfer in's money came to. */
export type MoneyOutcome =
  | { readonly received: { readonly insuranceNumber: string; readonly receivedOn: IsoDate; readonly custodyAccount: string; readonly custodianId: string } }
  | { readonly notTransferIn: true }
  | { readonly alreadyReceived: IsoDate };

/**
 * Records that a transfer in's money has arrived at `custodianId`: the insurance gets its
 * custody account there (numbered after the insurance, INS-200007 → DEPA-200007, as an
 * issued application's), opened that day, and stops awaiting money. Once only.
 */
export async function recordTransferMoney(sql: Sql, input: { insuranceNumber: string; receivedOn: IsoDate; custodianId: string }): Promise<MoneyOutcome> {
  const { rows } = await sql.query<{ insurance_number: string }>(
    'UPDATE transfer_leaflets_in SET money_received_on = $2 WHERE insurance_number = $1 AND money_received_on IS NULL RETURNING insurance_number',
    [input.insuranceNumber, input.receivedOn],
  );
  if (rows.length === 0) {
    const { rows: known } = await sql.query<{ received: string | null }>('SELECT money_received_on::text AS received FROM transfer_leaflets_in WHERE insurance_number = $1', [input.insuranceNumber]);
    const received = known[0]?.received;
    return received ? { alreadyReceived: received } : { notTransferIn: true };
  }
  const custodyAccount = `DEPA-${input.insuranceNumber.replace(/^INS-/, '')}`;
  await sql.query('INSERT INTO custody_accounts (account_number, custodian_id, opened_on) VALUES ($1, $2, $3)', [custodyAccount, input.custodianId, input.receivedOn]);
  await sql.query('UPDATE insurances SET custody_account = $2 WHERE insurance_number = $1', [input.insuranceNumber, custodyAccount]);
  return { received: { insuranceNumber: input.insuranceNumber, receivedOn: input.receivedOn, custodyAccount, custodianId: input.custodianId } };
}
