/**
 * The JSON schema of a direct query's answer (GET /DirectQuery/{customerId}): the
 * customer's engagement (src/core/engagement.ts), the same content as the
 * EngagementResponse XML document (schemas/EngagementResponse.xsd). Registered with the
 * REST API's shared schemas, so it shapes the answer and is in /openapi.json.
 */
const date = { type: 'string', format: 'date' } as const;
const nullableDate = { type: ['string', 'null'], format: 'date' } as const;
const amount = { type: 'string', pattern: '^-?\\d+\\.\\d{2}$', description: 'SEK, two decimals' } as const;
const nullableAmount = { type: ['string', 'null'], pattern: '^-?\\d+\\.\\d{2}$', description: 'SEK, two decimals' } as const;
const month = { type: 'string', pattern: '^\\d{4}-\\d{2}$', description: 'YYYY-MM' } as const;
const object = (properties: Record<string, unknown>, description?: string) => ({
  type: 'object', required: Object.keys(properties), properties, ...(description ? { description } : {}),
});
const nullableObject = (properties: Record<string, unknown>, description: string) => ({ ...object(properties, description), type: ['object', 'null'] });

export const ENGAGEMENT_SCHEMA = {
  $id: 'Engagement',
  type: 'object',
  description: "A customer's engagement: every insurance the customer holds or is insured by, as the ledger knows it on asOf. Field names are depot-gateway's own (the S4I MIS field list is not public); docs/direct-query.md",
  required: ['queryId', 'customerId', 'asOf', 'powerOfAttorney', 'insurances'],
  properties: {
    queryId: { type: 'string', description: 'The number of this query in the record of direct queries (the XML answer\'s MessageId is DQ-<queryId>)' },
    customerId: { type: 'string', description: 'The customer asked about: personnummer (12 digits) or organisation number (10 digits)' },
    asOf: { ...date, description: 'The day (Stockholm) the engagement is read on' },
    powerOfAttorney: { type: 'string', enum: ['information', 'intermediation'], description: 'The kind of power the query was answered under' },
    insurances: {
      type: 'array',
      description: 'In insurance number order; empty when the ledger has no insurance on the customer',
      items: object({
        insuranceNumber: { type: 'string' },
        roles: { type: 'array', items: { type: 'string', enum: ['policyholder', 'insured'] }, description: 'How the customer stands to the insurance' },
        policyholder: { type: ['string', 'null'], description: 'Personnummer or organisation number (an employer)' },
        insured: { type: 'string', description: "The insured's personnummer" },
        product: object({ code: { type: 'string' }, name: { type: 'string' } }),
        insuranceType: { type: 'string', enum: ['K', 'P', 'T'], description: 'K capital insurance, P private pension, T occupational pension' },
        startDate: date,
        status: { type: 'string', enum: ['in force', 'not yet in force', 'paid-up', 'in payout', 'awaiting money', 'ended'] },
        end: nullableObject({ lastDay: date, cause: { type: 'string', enum: ['paid-out', 'transferred-out', 'surrendered', 'death'] } }, 'Its end once recorded'),
        custody: nullableObject({
          accountNumber: { type: 'string' },
          custodianId: { type: ['string', 'null'] },
          custodianName: { type: ['string', 'null'] },
          latestValue: nullableObject({ asOf: date, totalValue: amount }, "The custodian's latest reported value; null before its first report"),
        }, 'The custody account and its custodian'),
        premiums: object({
          monthlyAmount: { ...nullableAmount, description: 'The monthly premium in force on asOf; null when none, paid-up or ended' },
          history: { type: 'array', items: object({ from: date, monthlyAmount: amount }) },
          paidUpFrom: nullableDate,
        }),
        coverages: { type: 'array', items: object({ type: { type: 'string', enum: ['repaymentProtection', 'premiumWaiver'] }, from: date }) },
        payout: object({
          canBegin: date,
          plan: nullableObject({
            startMonth: month, months: { type: ['integer', 'null'] }, monthlyAmount: nullableAmount,
            status: { type: 'string', enum: ['scheduled', 'paying', 'completed'] }, completedMonth: { type: ['string', 'null'] },
          }, 'The payout plan the insured started, once registered'),
          payouts: { type: 'array', description: 'The payouts ordered from the custodian', items: object({ month, installment: { type: 'integer' }, amount, payBy: date, final: { type: 'boolean' } }) },
        }),
        beneficiary: nullableObject({ choice: { type: 'string', enum: ['standard', 'named'] }, names: { type: 'array', items: { type: 'string' } } }, 'The beneficiary arrangement where recorded (an insurance applied for through this API); null otherwise'),
        charges: object({
          from: date, to: date, total: amount,
          lines: { type: 'array', items: object({ charge: { type: 'string' }, basis: { type: ['string', 'null'] }, amount, periodFrom: date, periodTo: date }) },
        }, 'The charges debited for periods ending within the last year (from the same day a year before asOf)'),
      }),
    },
  },
} as const;
