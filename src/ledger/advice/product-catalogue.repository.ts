import type { Sql } from '../database.ts';

/**
 * What advisors may offer: products open for subscription, their documents (every
 * version kept, the latest answered) and the funds selectable in each.
 */

export interface ProductRow {
  readonly id: string;
  readonly name: string;
  /** Tax category: P (pension), T (occupational pension), K (capital insurance). */
  readonly taxCategory: 'P' | 'T' | 'K';
  readonly line: 'individual' | 'occupational';
}

export interface ProductDocumentRow {
  readonly id: string;
  readonly title: string;
  readonly kind: string;
  readonly version: number;
  readonly published: string;
}

export interface DocumentFile extends ProductDocumentRow {
  readonly contentType: string;
  readonly content: Buffer;
  readonly sha256: string;
}

export interface FundRow {
  readonly name: string;
  readonly isin: string;
}

const PRODUCT_COLUMNS = `code AS id, name, kind AS "taxCategory", line`;

export async function listOpenProducts(db: Sql): Promise<ProductRow[]> {
  const { rows } = await db.query<ProductRow>(`SELECT ${PRODUCT_COLUMNS} FROM products WHERE open_for_subscription ORDER BY code`);
  return rows;
}

/** An open product, or undefined: a closed one is not offered, so it is not found either. */
export async function findOpenProduct(db: Sql, id: string): Promise<ProductRow | undefined> {
  const { rows } = await db.query<ProductRow>(`SELECT ${PRODUCT_COLUMNS} FROM products WHERE code = $1 AND open_for_subscription`, [id]);
  return rows[0];
}

/** The latest version of each of the product's documents. */
export async function listProductDocuments(db: Sql, productId: string): Promise<ProductDocumentRow[]> {
  const { rows } = await db.query<ProductDocumentRow>(
    `SELECT DISTINCT ON (document_id) document_id AS id, title, kind, version, published_on::text AS published
       FROM product_documents WHERE product_code = $1
      ORDER BY document_id, version DESC`,
    [productId],
  );
  return rows;
}

/** A document's latest version with its file, or undefined. */
export async function findLatestDocument(db: Sql, id: string): Promise<DocumentFile | undefined> {
  const { rows } = await db.query<Omit<DocumentFile, 'content'> & { content: Uint8Array }>(
    `SELECT d.document_id AS id, d.title, d.kind, d.version, d.published_on::text AS published, d.content_type AS "contentType", d.content, d.sha256
       FROM product_documents d JOIN products p ON p.code = d.product_code
      WHERE d.document_id = $1 AND p.open_for_subscription
      ORDER BY d.version DESC LIMIT 1`,
    [id],
  );
  const row = rows[0];
  // pg gives a Buffer, PGlite a Uint8Array.
  return row ? { ...row, content: Buffer.from(row.content.buffer, row.content.byteOffset, row.content.byteLength) } : undefined;
}

export async function listProductFunds(db: Sql, productId: string): Promise<FundRow[]> {
  const { rows } = await db.query<FundRow>(
    `SELECT f.name, f.isin FROM product_funds pf JOIN funds f ON f.isin = pf.isin WHERE pf.product_code = $1 ORDER BY f.name`,
    [productId],
  );
  return rows;
}
