import type { FastifyInstance } from 'fastify';

/**
 * The JSON schemas shared by the REST API's routes. They validate requests, shape
 * responses and are the OpenAPI description (`/openapi.json`): one source of truth.
 */
export function addApiSchemas(scope: FastifyInstance): void {
  scope.addSchema({
    $id: 'Problem',
    type: 'object',
    description: 'RFC 9457 problem details; `code` is one of docs/errors.md',
    required: ['type', 'title', 'status', 'code'],
    properties: {
      type: { type: 'string' },
      title: { type: 'string' },
      status: { type: 'integer' },
      code: { type: 'string' },
      detail: { type: 'string' },
      errors: {
        type: 'array',
        items: { type: 'object', required: ['path', 'code', 'message'], properties: { path: { type: 'string', description: 'JSON path of the value, e.g. $.premium.monthly' }, code: { type: 'string' }, message: { type: 'string' } } },
      },
    },
  });
  scope.addSchema({
    $id: 'Product',
    type: 'object',
    required: ['id', 'name', 'taxCategory', 'line'],
    properties: {
      id: { type: 'string', examples: ['KF-DEPA'] },
      name: { type: 'string' },
      taxCategory: { type: 'string', enum: ['P', 'T', 'K'], description: 'P pension insurance, T occupational pension, K capital insurance' },
      line: { type: 'string', enum: ['individual', 'occupational'], description: "individual insurance, or an employer's occupational plan" },
    },
  });
  scope.addSchema({
    $id: 'ProductDocument',
    type: 'object',
    required: ['id', 'title', 'kind', 'version', 'published'],
    properties: {
      id: { type: 'string', description: 'Stays the same across versions; GET /Document/{id} answers the latest' },
      title: { type: 'string' },
      kind: { type: 'string', enum: ['pre-purchase-information', 'terms', 'fact-sheet', 'fund-list', 'other'] },
      version: { type: 'integer', minimum: 1 },
      published: { type: 'string', format: 'date' },
    },
  });
  scope.addSchema({
    $id: 'Fund',
    type: 'object',
    required: ['name', 'isin'],
    properties: { name: { type: 'string' }, isin: { type: 'string', pattern: '^[A-Z]{2}[A-Z0-9]{9}[0-9]$' } },
  });
  scope.addSchema({
    $id: 'Advisor',
    type: 'object',
    required: ['advisorIsActive', 'advisorOrganisationName', 'advisorOrganisationNumber', 'advisorOfficeName', 'advisorOfficeCode', 'advisorName', 'advisorCode', 'advisorPersonalNumber'],
    properties: {
      advisorIsActive: { type: 'boolean' },
      advisorOrganisationName: { type: 'string' },
      advisorOrganisationNumber: { type: 'string', pattern: '^\\d{10}$' },
      advisorOfficeName: { type: ['string', 'null'] },
      advisorOfficeCode: { type: ['string', 'null'] },
      advisorName: { type: 'string' },
      advisorCode: { type: 'string' },
      advisorPersonalNumber: { type: 'string', pattern: '^\\d{12}$' },
    },
  });
}
