import type { FastifyInstance } from 'fastify';
import { decideAccess } from '../../core/access.policy.ts';
import { stockholmDate } from '../../core/calendar-date.ts';
import { GatewayError } from '../../core/gateway-error.ts';
import type { Sql } from '../../ledger/database.ts';
import { findLatestDocument, findOpenProduct, listOpenProducts, listProductDocuments, listProductFunds } from '../../ledger/advice/product-catalogue.repository.ts';
import { callerOf } from './api-auth.ts';

/**
 * The product catalogue for advisors: GET /Product, /Product/{id}/document,
 * /Document/{id} (the file, latest version, with an ETag) and /Product/{id}/Funds.
 * A product closed for subscription is not offered, so it answers as not found.
 */
export interface CatalogueRouteOptions {
  readonly db: Sql;
  readonly clock: () => Date;
}

const problem = { $ref: 'Problem#' } as const;
const idParam = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 64 } } } as const;

export async function registerProductRoutes(app: FastifyInstance, { db, clock }: CatalogueRouteOptions): Promise<void> {
  // Every route asks the policy, the catalogue's answer included: one place decides.
  app.addHook('preHandler', async (request) => {
    if (!decideAccess(callerOf(request), { kind: 'catalogue' }, stockholmDate(clock())).allowed) throw new GatewayError('RESOURCE_NOT_FOUND');
  });

  app.get('/Product', {
    schema: {
      tags: ['products'], summary: 'Products open for subscription',
      response: { 200: { type: 'array', items: { $ref: 'Product#' } }, 401: problem },
    },
  }, async () => listOpenProducts(db));

  app.get('/Product/:id/document', {
    schema: {
      tags: ['products'], summary: "A product's documents (latest version of each)", params: idParam,
      response: { 200: { type: 'array', items: { $ref: 'ProductDocument#' } }, 401: problem, 404: problem },
    },
  }, async (request) => {
    const { id } = request.params as { id: string };
    if (!(await findOpenProduct(db, id))) throw new GatewayError('RESOURCE_NOT_FOUND', `No product ${id} is open for subscription.`);
    return listProductDocuments(db, id);
  });

  app.get('/Document/:id', {
    schema: {
      tags: ['products'], summary: "A document's latest version: the file itself, with an ETag", params: idParam,
      produces: ['application/pdf'],
      response: { 200: { description: 'The file (usually PDF), with Content-Type, ETag and Content-Disposition', type: 'string', format: 'binary' }, 304: { description: 'Not modified (If-None-Match matched)', type: 'null' }, 401: problem, 404: problem },
    },
  }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const document = await findLatestDocument(db, id);
    if (!document) throw new GatewayError('RESOURCE_NOT_FOUND', `No document ${id}.`);
    const etag = `"${document.sha256}"`;
    void reply.header('etag', etag).header('cache-control', 'private, no-cache').header('x-document-version', String(document.version));
    if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send();
    return reply
      .type(document.contentType)
      .header('content-disposition', `inline; filename="${document.id}-v${document.version}${extensionOf(document.contentType)}"`)
      .send(document.content);
  });

  app.get('/Product/:id/Funds', {
    schema: {
      tags: ['products'], summary: 'Funds selectable in a product', params: idParam,
      response: { 200: { type: 'array', items: { $ref: 'Fund#' } }, 401: problem, 404: problem },
    },
  }, async (request) => {
    const { id } = request.params as { id: string };
    if (!(await findOpenProduct(db, id))) throw new GatewayError('RESOURCE_NOT_FOUND', `No product ${id} is open for subscription.`);
    return listProductFunds(db, id);
  });
}

/** If-None-Match holds the ETag (or `*`); weak comparison, as RFC 9110 asks for it. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

function extensionOf(contentType: string): string {
  return contentType === 'application/pdf' ? '.pdf' : '';
}
