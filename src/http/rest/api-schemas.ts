import type { FastifyInstance } from 'fastify';
import { ENGAGEMENT_SCHEMA } from './engagement.schema.ts';

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
  // Where a party to an application is told that it went to manual review (optional).
  const email = { type: 'string', format: 'email', maxLength: 254, description: 'Told by e-mail when the application goes to manual review', examples: ['anna.andersson@mail.example'] } as const;
  add({
    $id: 'InsuranceApplication',
    type: 'object',
    additionalProperties: false,
    required: ['productId', 'advisorCode', 'policyholder', 'insured', 'premium', 'funds', 'custodianId', 'beneficiary', 'coverages'],
    properties: {
      productId: { type: 'string', minLength: 1, maxLength: 64, description: 'GET /Product' },
      advisorCode: { type: 'string', minLength: 1, maxLength: 64, description: 'One of your firm\'s active advisors' },
      policyholder: {
        type: 'object', additionalProperties: false, required: ['id'],
        properties: {
          id: { type: 'string', pattern: '^(\\d{10}|\\d{12})$', description: 'personnummer (12 digits) or organisationsnummer (10 digits)' },
          email,
        },
      },
      insured: {
        type: 'object', additionalProperties: false, required: ['id'],
        properties: {
          id: { type: 'string', pattern: '^\\d{12}$', description: 'personnummer (12 digits)' },
          email: { ...email, description: "Where the insured is told when payout can begin (optional; otherwise by letter). The policyholder's email serves when the policyholder is the insured" },
        },
      },
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
  const history = {
    type: 'array', description: 'Every status the application has had: when, who (advisor:<code>, staff:<user>, gateway) and why',
    items: { type: 'object', required: ['status', 'at', 'by', 'reason'], properties: { status: { type: 'string' }, at: { type: 'string', format: 'date-time' }, by: { type: 'string' }, reason: { type: ['string', 'null'] } } },
  } as const;
  const APPLICATION_STATUS_VALUES = ['received', 'awaiting-signature', 'under-review', 'approved', 'rejected', 'issued', 'expired'];
  const APPLICATION_STATUS_TEXT = 'awaiting-signature until every signatory has signed (signCaseId), then issued, or under-review for staff; expired when not signed by signBy';
  const applicationSigning = {
    signCaseId: { type: ['string', 'null'], description: 'The sign case its signatories sign: GET /SignCase/{id}, Sign, Collect (null for an application made before signing was asked for)' },
    signBy: { type: ['string', 'null'], format: 'date', description: 'The last day it may be signed; it expires the day after' },
  } as const;
  add({
    $id: 'ApplicationStatus',
    type: 'object',
    required: ['applicationId', 'productId', 'customerId', 'status', 'submittedAt', 'signCaseId', 'signBy', 'insuranceId', 'history'],
    properties: {
      applicationId: { type: 'string' },
      productId: { type: 'string' },
      customerId: { type: 'string' },
      status: { type: 'string', enum: APPLICATION_STATUS_VALUES, description: APPLICATION_STATUS_TEXT },
      ...applicationSigning,
      submittedAt: { type: 'string', format: 'date-time' },
      insuranceId: { type: ['string', 'null'], description: 'The insurance it was issued as, once issued' },
      history,
    },
  });
  const amount = { type: 'string', pattern: '^\\d{1,12}(\\.\\d{1,2})?$' } as const;
  const percent = { type: 'string', pattern: '^(100(\\.0{1,4})?|\\d{1,2}(\\.\\d{1,4})?)$' } as const;
  // Codes and names as the plan-administration documents carry them (schemas/Types.xsd).
  const categoryCode = { type: 'string', pattern: '^[A-Za-z0-9-]{1,10}$' } as const;
  const costCenterCode = { type: 'string', pattern: '^[A-Za-z0-9]{1,10}$' } as const;
  const name = { type: 'string', minLength: 1, maxLength: 100 } as const;
  add({
    $id: 'PlanApplication',
    type: 'object',
    additionalProperties: false,
    description: "An employer's occupational pension plan: the agreement's terms and the first insured employees",
    required: ['productId', 'advisorCode', 'employer', 'agreement', 'funds', 'custodianId', 'employees'],
    properties: {
      productId: { type: 'string', minLength: 1, maxLength: 64, description: 'An occupational product (GET /Product, line occupational)' },
      advisorCode: { type: 'string', minLength: 1, maxLength: 64, description: "One of your firm's active advisors" },
      employer: {
        type: 'object', additionalProperties: false, required: ['organisationNumber', 'name'],
        properties: {
          organisationNumber: { type: 'string', pattern: '^\\d{10}$', description: 'organisationsnummer (10 digits)' },
          name: { type: 'string', minLength: 1, maxLength: 200 },
          contactEmail: { ...email, description: "The employer's contact for this application: told by e-mail when it goes to manual review" },
        },
      },
      agreement: {
        type: 'object', additionalProperties: false, required: ['categories', 'costCenters'],
        properties: {
          categories: {
            type: 'array', minItems: 1, maxItems: 50, description: 'Benefit groups and the premium rule of each',
            items: {
              type: 'object', additionalProperties: false, required: ['code', 'name', 'premium'],
              properties: {
                code: categoryCode, name,
                premium: {
                  type: 'object', additionalProperties: false,
                  description: 'percentOfSalary (of the monthly salary; with percentAboveCap, up to 7.5 income base amounts a year and percentAboveCap above) or fixedMonthly (SEK)',
                  properties: { percentOfSalary: { ...percent, examples: ['4.5'] }, percentAboveCap: { ...percent, examples: ['30'] }, fixedMonthly: { ...amount, examples: ['1500'] } },
                  oneOf: [{ required: ['percentOfSalary'] }, { required: ['fixedMonthly'], not: { required: ['percentAboveCap'] } }],
                },
              },
            },
          },
          costCenters: {
            type: 'array', minItems: 1, maxItems: 500,
            items: { type: 'object', additionalProperties: false, required: ['code', 'name'], properties: { code: costCenterCode, name } },
          },
        },
      },
      funds: {
        type: 'array', minItems: 1, maxItems: 20, description: 'The distribution plan every insurance starts with',
        items: { type: 'object', additionalProperties: false, required: ['isin', 'percent'], properties: { isin: { type: 'string', pattern: '^[A-Z]{2}[A-Z0-9]{9}[0-9]$' }, percent: { type: 'number', exclusiveMinimum: 0, maximum: 100, multipleOf: 0.01 } } },
      },
      custodianId: { type: 'string', minLength: 1, maxLength: 64 },
      employees: {
        type: 'array', minItems: 1, maxItems: 1000,
        items: {
          type: 'object', additionalProperties: false, required: ['personalIdentityNumber', 'category', 'costCenter', 'annualSalary', 'employmentStart'],
          properties: {
            personalIdentityNumber: { type: 'string', pattern: '^\\d{12}$', description: 'personnummer (12 digits)' },
            category: { ...categoryCode, description: 'A code of agreement.categories' },
            costCenter: { ...costCenterCode, description: 'A code of agreement.costCenters' },
            annualSalary: { ...amount, description: 'SEK a year, e.g. "540000.00"' },
            employmentStart: { type: 'string', format: 'date' },
          },
        },
      },
    },
  });
  add({
    $id: 'PlanApplicationStatus',
    type: 'object',
    required: ['applicationId', 'productId', 'employerOrganisationNumber', 'status', 'submittedAt', 'signCaseId', 'signBy', 'agreementId', 'insurances', 'history'],
    properties: {
      applicationId: { type: 'string' },
      productId: { type: 'string' },
      employerOrganisationNumber: { type: 'string' },
      status: { type: 'string', enum: APPLICATION_STATUS_VALUES, description: APPLICATION_STATUS_TEXT },
      ...applicationSigning,
      submittedAt: { type: 'string', format: 'date-time' },
      agreementId: { type: ['string', 'null'], description: 'The agreement it was issued as, once issued' },
      insurances: {
        type: 'array', description: "The employees' insurances, once issued",
        items: { type: 'object', required: ['personalIdentityNumber', 'insuranceId'], properties: { personalIdentityNumber: { type: 'string' }, insuranceId: { type: 'string' } } },
      },
      history,
    },
  });
  add({
    $id: 'WithdrawalAccount',
    type: 'object',
    description: 'A bank account registered for a policyholder\'s withdrawals',
    required: ['registrationId', 'customerId', 'accountNumber', 'bankName', 'status', 'registeredAt', 'validationAt', 'decidedAt', 'reason'],
    properties: {
      registrationId: { type: 'string' },
      customerId: { type: 'string', description: 'The policyholder' },
      accountNumber: { type: 'string', description: 'Clearing number and account number, digits only (a short type-2 account padded with zeros)' },
      bankName: { type: 'string' },
      status: { type: 'string', enum: ['pending', 'validated', 'refused'], description: 'Only a validated account can receive a withdrawal' },
      registeredAt: { type: 'string', format: 'date-time' },
      validationAt: { type: 'string', format: 'date-time', description: 'The 13:00 (Stockholm) run that validates or validated it' },
      decidedAt: { type: ['string', 'null'], format: 'date-time' },
      reason: { type: ['string', 'null'], description: 'Why it was refused' },
    },
  });
  const sek = { type: 'string', pattern: '^\\d+\\.\\d{2}$', description: 'SEK' } as const;
  add({
    $id: 'WithdrawalInformation',
    type: 'object',
    description: 'Whether an insurance allows a withdrawal today and between which amounts; the largest is the latest custody value minus charges and tax not yet debited and withdrawals already requested',
    required: ['insuranceNumber', 'customerId', 'productId', 'taxCategory', 'withdrawalAllowed'],
    properties: {
      insuranceNumber: { type: 'string' },
      customerId: { type: 'string', description: 'The policyholder' },
      productId: { type: 'string' },
      taxCategory: { type: 'string', enum: ['P', 'T', 'K'] },
      withdrawalAllowed: { type: 'boolean' },
      reason: { type: 'string', description: 'Why not, when not allowed' },
      minimum: sek,
      maximum: sek,
      value: { ...sek, description: 'The latest custody value' },
      valueAsOf: { type: 'string', format: 'date' },
      reservedForCharges: { ...sek, description: 'Fixed and capital charges since the last debit' },
      reservedForTax: { ...sek, description: 'Yield tax not yet debited' },
      requested: { ...sek, description: 'Withdrawals requested and not yet paid out' },
    },
  });
  add({
    $id: 'WithdrawalRequest',
    type: 'object',
    description: 'A withdrawal request: it goes to the custodian once the insurer has approved it and every signatory of its sign case has signed',
    required: ['requestId', 'signCaseId', 'insuranceNumber', 'customerId', 'amount', 'accountNumber', 'bankName', 'status', 'requestedAt', 'history'],
    properties: {
      requestId: { type: 'string' },
      signCaseId: { type: 'string', description: 'The sign case its signatories sign: GET /SignCase/{id}' },
      insuranceNumber: { type: 'string' },
      customerId: { type: 'string', description: 'The policyholder' },
      amount: sek,
      accountNumber: { type: 'string', description: 'The validated withdrawal account, digits only' },
      bankName: { type: 'string' },
      status: { type: 'string', enum: ['requested', 'approved', 'signed', 'rejected', 'ordered', 'sent', 'paid-out'], description: 'approved: awaiting signatures; signed: awaiting approval; ordered: in a DebitAccounts document; sent: delivered to the custodian; paid-out: the custodian reported the payment' },
      requestedAt: { type: 'string', format: 'date-time' },
      history: {
        type: 'array',
        items: {
          type: 'object', required: ['event', 'at', 'by', 'reason'],
          properties: { event: { type: 'string' }, at: { type: 'string' }, by: { type: 'string' }, reason: { type: ['string', 'null'] } },
        },
      },
    },
  });
  add({
    $id: 'PayoutRequest',
    type: 'object',
    description: "The insured's request to start the payout: it registers the payout once every signatory of its sign case has signed",
    required: ['requestId', 'signCaseId', 'insuranceNumber', 'insured', 'customerId', 'period', 'months', 'firstMonth', 'accountNumber', 'bankName', 'status', 'requestedAt', 'history'],
    properties: {
      requestId: { type: 'string' },
      signCaseId: { type: 'string', description: 'The sign case its signatories sign: GET /SignCase/{id}' },
      insuranceNumber: { type: 'string' },
      insured: { type: 'string', description: "The insured's personnummer: the request is theirs" },
      customerId: { type: 'string', description: 'The policyholder' },
      period: { type: 'string', description: 'As requested: "10y", "36m"' },
      months: { type: 'integer' },
      firstMonth: { type: 'string', description: 'YYYY-MM' },
      accountNumber: { type: 'string', description: "The account paid to, validated as the insured's, digits only" },
      bankName: { type: 'string' },
      status: { type: 'string', enum: ['requested', 'registered', 'refused', 'closed'], description: 'requested: awaiting signatures; registered: the payout is registered and the monthly payout runs pay it; refused: signed, but no longer possible (the history says why); closed: replaced by another request, or a payout registered otherwise' },
      requestedAt: { type: 'string', format: 'date-time' },
      history: {
        type: 'array',
        items: {
          type: 'object', required: ['event', 'at', 'by', 'reason'],
          properties: { event: { type: 'string', enum: ['requested', 'signed', 'registered', 'refused', 'closed'] }, at: { type: 'string' }, by: { type: 'string' }, reason: { type: ['string', 'null'] } },
        },
      },
    },
  });
  add({
    $id: 'SignCase',
    type: 'object',
    description: 'Who must sign a request, by role, and whether each has signed',
    required: ['signCaseId', 'requestId', 'subjectKind', 'closed', 'complete', 'signatories'],
    properties: {
      signCaseId: { type: 'string' },
      requestId: { type: 'string', description: 'What is signed: a withdrawal request (WR-…), a payout request (PR-…), an insurance (IA-…) or pension plan (PA-…) application' },
      subjectKind: {
        type: 'string', enum: ['withdrawal', 'payout', 'application', 'custodian-switch'],
        description: 'What kind it is: GET /Insurance/withdrawalrequest/{requestId}, /Insurance/payoutrequest/{requestId}, /InsuranceApplication/{requestId}, /PlanApplication/{requestId} or /Insurance/custodianswitch/{requestId}',
      },
      closed: { type: ['string', 'null'], description: 'Why nobody may sign it any more (the request was rejected, the application expired); null while it may be signed' },
      complete: { type: 'boolean', description: 'Every signatory has signed (of company signatories: as many as companySignaturesRequired)' },
      companySignaturesRequired: { type: ['integer', 'null'], description: 'An organisation policyholder: how many of its company signatories must sign; null otherwise' },
      signatories: {
        type: 'array',
        items: {
          type: 'object', required: ['role', 'personalNumber', 'signed', 'signedAt', 'linkExpiresAt'],
          properties: {
            role: { type: 'string', enum: ['policyholder', 'insured', 'company-signatory'] }, personalNumber: { type: 'string' }, signed: { type: 'boolean' }, signedAt: { type: ['string', 'null'], format: 'date-time' },
            linkExpiresAt: { type: ['string', 'null'], format: 'date-time', description: "Until when the signatory's signing link works (the latest of their live links: POST /SignCase/{id}/Link); null when they have none, or the case is complete or closed" },
          },
        },
      },
    },
  });
  add({ ...ENGAGEMENT_SCHEMA });
  add({
    $id: 'CustomerApplication',
    type: 'object',
    required: ['productName', 'insuranceId', 'applicationId', 'status'],
    properties: { productName: { type: 'string' }, insuranceId: { type: ['string', 'null'], description: 'Once issued' }, applicationId: { type: 'string' }, status: { type: 'string' } },
  });
}
