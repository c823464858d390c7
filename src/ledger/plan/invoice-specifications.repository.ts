import type { PersonHistory } from '../../core/person-history.ts';
import type { Sql } from '../database.ts';
import { readPersonHistory } from './person-history.repository.ts';

/**
 * The monthly invoice specifications (migration 0045): the agreements and their people
 * a month's run reads, the specification it records with its document, and what staff
 * list, read and send again. The document itself is an `outgoing_documents` row,
 * delivered as a run's DebitAccounts is (src/pipeline/deliver-outgoing.ts).
 */

export interface AgreementToSpecify {
  readonly agreementNumber: string;
  readonly name: string;
  readonly employerOrganisationNumber: string;
  /** Organisations that administer the agreement for the employer. */
  readonly administrators: readonly string[];
}

/** Every pension-plan agreement not yet specified for `month`, by number. */
export async function agreementsToSpecify(sql: Sql, month: string): Promise<AgreementToSpecify[]> {
  const { rows } = await sql.query<AgreementToSpecify>(
    `SELECT a.agreement_number AS "agreementNumber", a.name, a.employer_organisation_number AS "employerOrganisationNumber",
            coalesce((SELECT array_agg(x.organisation_number ORDER BY x.organisation_number) FROM agreement_administrators x
                       WHERE x.agreement_number = a.agreement_number), '{}') AS administrators
       FROM agreements a
      WHERE NOT EXISTS (SELECT 1 FROM invoice_specifications s WHERE s.agreement_number = a.agreement_number AND s.month = $1)
      ORDER BY a.agreement_number`,
    [month],
  );
  return rows;
}

/** The plan history of everyone employed or insured under the agreement. */
export async function agreementHistories(sql: Sql, agreementNumber: string): Promise<PersonHistory[]> {
  const { rows } = await sql.query<{ pin: string }>(
    `SELECT personal_identity_number AS pin FROM employments WHERE agreement_number = $1
      UNION SELECT insured_pin FROM insurances WHERE agreement_number = $1 ORDER BY 1`,
    [agreementNumber],
  );
  const histories: PersonHistory[] = [];
  for (const { pin } of rows) {
    const history = await readPersonHistory(sql, agreementNumber, pin);
    if (history) histories.push(history);
  }
  return histories;
}

export interface NewInvoiceSpecification {
  readonly agreementNumber: string;
  readonly month: string;
  readonly documentId: string;
  readonly counterpartyId: string;
  readonly fileName: string;
  readonly body: string;
  readonly pdf: Buffer;
  readonly insuredCount: number;
  readonly premiums: string;
  readonly extraPremiums: string;
  readonly total: string;
  readonly createdAt: Date;
}

/** Records the document for delivery and the specification, in the caller's transaction. */
export async function insertInvoiceSpecification(sql: Sql, spec: NewInvoiceSpecification): Promise<void> {
  await sql.query(
    `INSERT INTO outgoing_documents (document_id, counterparty_id, document_type, file_name, body, created_at) VALUES ($1, $2, 'InvoiceSpecification', $3, $4, $5)`,
    [spec.documentId, spec.counterpartyId, spec.fileName, spec.body, spec.createdAt],
  );
  await sql.query(
    `INSERT INTO invoice_specifications (agreement_number, month, document_id, counterparty_id, insured_count, premiums, extra_premiums, total, pdf, created_at)
     VALUES ($1, $2, $3, $4, $5, $6::numeric, $7::numeric, $8::numeric, $9, $10)`,
    [spec.agreementNumber, spec.month, spec.documentId, spec.counterpartyId, spec.insuredCount, spec.premiums, spec.extraPremiums, spec.total, spec.pdf, spec.createdAt],
  );
}

export interface InvoiceSpecificationRow {
  readonly documentId: string;
  readonly agreementNumber: string;
  readonly month: string;
  readonly counterpartyId: string;
  readonly insuredCount: number;
  readonly premiums: string;
  readonly extraPremiums: string;
  readonly total: string;
  readonly createdAt: Date;
  readonly fileName: string;
  readonly deliveredAt: Date | null;
  readonly deliveryTarget: string | null;
  readonly attempts: number;
  readonly lastError: string | null;
}

const ROW = `s.document_id AS "documentId", s.agreement_number AS "agreementNumber", s.month, s.counterparty_id AS "counterpartyId",
  s.insured_count AS "insuredCount", s.premiums::text AS premiums, s.extra_premiums::text AS "extraPremiums", s.total::text AS total,
  s.created_at AS "createdAt", o.file_name AS "fileName", o.delivered_at AS "deliveredAt", o.delivery_target AS "deliveryTarget",
  o.attempts, o.last_error AS "lastError"`;

function mapRow<T extends InvoiceSpecificationRow>(row: T): T {
  return { ...row, createdAt: new Date(row.createdAt), deliveredAt: row.deliveredAt === null ? null : new Date(row.deliveredAt) };
}

/** Newest month first; one agreement's or one month's when asked. */
export async function listInvoiceSpecifications(sql: Sql, filter: { agreementNumber?: string; month?: string; limit: number }): Promise<InvoiceSpecificationRow[]> {
  const { rows } = await sql.query<InvoiceSpecificationRow>(
    `SELECT ${ROW} FROM invoice_specifications s JOIN outgoing_documents o ON o.document_id = s.document_id
      WHERE ($1::text IS NULL OR s.agreement_number = $1) AND ($2::text IS NULL OR s.month = $2)
      ORDER BY s.month DESC, s.agreement_number LIMIT $3`,
    [filter.agreementNumber ?? null, filter.month ?? null, filter.limit],
  );
  return rows.map(mapRow);
}

/** One specification with its document and PDF. */
export async function findInvoiceSpecification(sql: Sql, documentId: string): Promise<(InvoiceSpecificationRow & { body: string; pdf: Buffer }) | undefined> {
  const { rows } = await sql.query<InvoiceSpecificationRow & { body: string; pdf: Uint8Array }>(
    `SELECT ${ROW}, o.body, s.pdf FROM invoice_specifications s JOIN outgoing_documents o ON o.document_id = s.document_id WHERE s.document_id = $1`,
    [documentId],
  );
  const row = rows[0];
  return row ? { ...mapRow(row), pdf: Buffer.from(row.pdf) } : undefined;
}

/**
 * Sends a recorded specification again: its document is marked undelivered (every
 * earlier attempt stays in `outgoing_deliveries`), so the deliver stage sends the same
 * bytes under the same name once more. False when there is no such specification.
 */
export async function markInvoiceSpecificationForDelivery(sql: Sql, documentId: string): Promise<boolean> {
  const { rows } = await sql.query(
    `UPDATE outgoing_documents o SET delivered_at = NULL, delivery_target = NULL
       FROM invoice_specifications s WHERE s.document_id = o.document_id AND o.document_id = $1 RETURNING o.document_id`,
    [documentId],
  );
  return rows.length > 0;
}
