import type { FastifyInstance } from 'fastify';

/**
 * The JSON schemas shared by the REST API's routes. They validate requests, shape
 * responses and are the OpenAPI description (`/openapi.json`): one source of truth.
 */
export function addApiSchemas(scope: FastifyInstance, validator: { addSchema(schema: object): unknown }): void {
  const add = (schema: { $id: string } & Record<string, unknown>) => {
    scope.addSchema(schema);
    validator.addSchema(schema);
  };
  add({
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
  add({
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
  add({
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
  add({
    $id: 'Fund',
    type: 'object',
    required: ['name', 'isin'],
    properties: { name: { type: 'string' }, isin: { type: 'string', pattern: '^[A-Z]{2}[A-Z0-9]{9}[0-9]$' } },
  });
  add({
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
  add({
    $id: 'InsuranceApplication',
    type: 'object',
    additionalProperties: false,
    required: ['productId', 'advisorCode', 'policyholder', 'insured', 'premium', 'funds', 'custodianId', 'beneficiary', 'coverages'],
    properties: {
      productId: { type: 'string', minLength: 1, maxLength: 64, description: 'GET /Product' },
      advisorCode: { type: 'string', minLength: 1, maxLength: 64, description: 'One of your firm\'s active advisors' },
      policyholder: { type: 'object', additionalProperties: false, required: ['id'], properties: { id: { type: 'string', pattern: '^(\\d{10}|\\d{12})$', description: 'personnummer (12 digits) or organisationsnummer (10 digits)' } } },
      insured: { type: 'object', additionalProperties: false, required: ['id'], properties: { id: { type: 'string', pattern: '^\\d{12}$', description: 'personnummer (12 digits)' } } },
      taxCategory: { type: 'string', enum: ['P', 'T', 'K'], description: "Needed only where the product offers more than one" },
      premium: {
        type: 'object', additionalProperties: false, minProperties: 1,
        properties: { single: { type: 'string', description: 'SEK, e.g. "50000.00"' }, monthly: { type: 'string', description: 'SEK a month' } },
      },
      funds: {
        type: 'array', minItems: 1, maxItems: 20,
        items: { type: 'object', additionalProperties: false, required: ['isin', 'percent'], properties: { isin: { type: 'string', pattern: '^[A-Z]{2}[A-Z0-9]{9}[0-9]$' }, percent: { type: 'number', exclusiveMinimum: 0, maximum: 100, multipleOf: 0.01 } } },
      },
      custodianId: { type: 'string', minLength: 1, maxLength: 64 },
      beneficiary: {
        type: 'object', additionalProperties: false, required: ['choice'],
        properties: { choice: { type: 'string', enum: ['standard', 'named'] }, names: { type: 'array', maxItems: 10, items: { type: 'string', minLength: 1, maxLength: 200 } } },
      },
      coverages: {
        type: 'object', additionalProperties: false, required: ['repaymentProtection', 'premiumWaiver'],
        properties: { repaymentProtection: { type: 'boolean' }, premiumWaiver: { type: 'boolean' } },
      },
    },
  });
  add({
    $id: 'ApplicationStatus',
    type: 'object',
    required: ['applicationId', 'productId', 'customerId', 'status', 'submittedAt', 'insuranceId', 'history'],
    properties: {
      applicationId: { type: 'string' },
      productId: { type: 'string' },
      customerId: { type: 'string' },
      status: { type: 'string', enum: ['received', 'under-review', 'approved', 'rejected', 'issued'] },
      submittedAt: { type: 'string', format: 'date-time' },
      insuranceId: { type: ['string', 'null'], description: 'The insurance it was issued as, once issued' },
      history: {
        type: 'array',
        items: { type: 'object', required: ['status', 'at', 'by', 'reason'], properties: { status: { type: 'string' }, at: { type: 'string', format: 'date-time' }, by: { type: 'string' }, reason: { type: ['string', 'null'] } } },
      },
    },
  });
  add({
    $id: 'CustomerApplication',
    type: 'object',
    required: ['productName', 'insuranceId', 'applicationId', 'status'],
    properties: { productName: { type: 'string' }, insuranceId: { type: ['string', 'null'], description: 'Once issued' }, applicationId: { type: 'string' }, status: { type: 'string' } },
  });
}
