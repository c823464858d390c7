import type { FastifyInstance } from 'fastify';
import type { Database } from '../../ledger/database.ts';
import { findSwitch, type SwitchRecord } from '../../ledger/custody/custodian-switches.repository.ts';
import { makeCustodianSwitch } from '../../requests/custodian-switch.ts';
import { callerOf, notAvailable } from './api-auth.ts';
import { accessGate } from './customer-access.ts';
import { sendProblem } from './problem-details.ts';

/**
 * Custodian switches over the REST API (docs/custodian-switch.md): an advisor firm
 * holding an intermediation power of attorney on the policyholder registers a switch of
 * an insurance to another custodian — POST /Insurance/{insuranceNumber}/custodianswitch —
 * and the policyholder signs it through its sign case (GET /SignCase/{id}, Sign, Collect,
 * or the signing page), as a withdrawal. GET /Insurance/custodianswitch/{id} gives where
 * it stands and its history.
 *
 * Only a firm acts here: a custodian is answered as for an insurance that does not exist
 * (the releasing custodian carries the switch out, it does not ask for it), and so is a
 * firm without an intermediation power valid today.
 */
export interface CustodianSwitchRouteOptions {
  readonly db: Database;
  readonly clock: () => Date;
  /** The configured custodians: the receiving custodian must be one. */
  readonly custodians: ReadonlySet<string>;
}

const problem = { $ref: 'Problem#' } as const;

const SWITCH_VIEW = {
  type: 'object',
  description: "A custodian switch: the insurance's securities move from the releasing custodian to the receiving one, which opens a new account",
  required: ['switchId', 'signCaseId', 'insuranceNumber', 'customerId', 'fromCustodian', 'fromAccount', 'toCustodian', 'toAccount', 'status', 'requestedAt', 'history'],
  properties: {
    switchId: { type: 'string', description: 'CS- and six digits' },
    signCaseId: { type: ['string', 'null'], description: 'The sign case the policyholder signs: GET /SignCase/{id}' },
    insuranceNumber: { type: 'string' },
    customerId: { type: 'string', description: 'The policyholder' },
    fromCustodian: { type: 'string' }, fromAccount: { type: 'string' },
    toCustodian: { type: 'string' }, toAccount: { type: ['string', 'null'], description: 'The new account, once named or confirmed' },
    status: {
      type: 'string', enum: ['requested', 'ordered', 'confirmed', 'completed', 'closed'],
      description: 'requested: awaiting signatures; ordered: the releasing custodian has the order; confirmed: the new account is open; completed: moved, the insurance is held at the new custodian; closed: given up',
    },
    transferredOut: { type: 'boolean' }, valueArrived: { type: 'boolean' },
    requestedAt: { type: 'string', format: 'date-time' },
    history: {
      type: 'array',
      items: { type: 'object', required: ['event', 'at', 'by', 'reason'], properties: { event: { type: 'string' }, at: { type: 'string' }, by: { type: 'string' }, reason: { type: ['string', 'null'] } } },
    },
  },
} as const;

export async function registerCustodianSwitchRoutes(app: FastifyInstance, options: CustodianSwitchRouteOptions): Promise<void> {
  const { db, clock } = options;

  app.post('/Insurance/:insuranceNumber/custodianswitch', {
    schema: {
      tags: ['custodian switches'],
      summary: "Switch an insurance's custodian: the receiving custodian (and the new account, when known) → the switch and the policyholder's sign case",
      params: { type: 'object', required: ['insuranceNumber'], properties: { insuranceNumber: { type: 'string', minLength: 1, maxLength: 64 } } },
      body: {
        type: 'object', additionalProperties: false, required: ['toCustodian'],
        properties: {
          toCustodian: { type: 'string', minLength: 1, maxLength: 64, description: 'The receiving custodian, as the insurer names it (a custodian of GET /Product\'s custodians)', examples: ['north-custodian'] },
          toAccount: { type: 'string', pattern: '^[A-Za-z0-9._:\\-]{1,34}$', description: 'The new account at the receiving custodian, when it is open already; otherwise the receiving custodian confirms it' },
        },
      },
      response: { 201: SWITCH_VIEW, 400: problem, 401: problem, 404: problem, 409: problem, 422: problem },
    },
  }, async (request, reply) => {
    const { insuranceNumber } = request.params as { insuranceNumber: string };
    const body = request.body as { toCustodian: string; toAccount?: string };
    const caller = callerOf(request);
    if (caller.kind !== 'advisor-firm') throw notAvailable();
    const now = clock();
    const outcome = await makeCustodianSwitch(db, options.custodians, {
      insuranceNumber, toCustodian: body.toCustodian, toAccount: body.toAccount, requestedBy: `client:${caller.clientId}`, now,
    }, accessGate(caller, now, 'act'));
    if (!outcome.made) {
      if ('notFound' in outcome) throw notAvailable();
      const [first] = outcome.problems;
      return sendProblem(reply, first!.code, outcome.problems.map((p) => p.message).join(' '));
    }
    const created = await findSwitch(db, outcome.switchId);
    return reply.code(201).header('location', `/Insurance/custodianswitch/${outcome.switchId}`).send(switchView(created!));
  });

  app.get('/Insurance/custodianswitch/:id', {
    schema: {
      tags: ['custodian switches'], summary: 'A custodian switch: where it stands, its sign case and history',
      params: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 64 } } },
      response: { 200: SWITCH_VIEW, 401: problem, 404: problem },
    },
  }, async (request) => {
    const found = await findSwitch(db, (request.params as { id: string }).id, accessGate(callerOf(request), clock(), 'read'));
    if (!found) throw notAvailable();
    return switchView(found);
  });
}

export function switchView(record: SwitchRecord) {
  return {
    switchId: record.switchId, signCaseId: record.signCaseId, insuranceNumber: record.insuranceNumber, customerId: record.policyholder,
    fromCustodian: record.fromCustodian, fromAccount: record.fromAccount, toCustodian: record.toCustodian, toAccount: record.toAccount,
    status: record.status, transferredOut: record.transferredOut, valueArrived: record.valueArrived, requestedAt: record.requestedAt,
    history: record.history,
  };
}
