import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { ERROR_CODES, type ErrorCode } from '../../core/error-codes.ts';
import { isGatewayError } from '../../core/gateway-error.ts';

/**
 * Errors of the REST API in one JSON shape, RFC 9457 problem details, with the code
 * from docs/errors.md beside the standard members:
 *
 *   { "type": "urn:depot-gateway:error:REQUEST_INVALID", "title": "…", "status": 400,
 *     "code": "REQUEST_INVALID", "detail": "…", "errors": [{ "path": "$.premium", "code": "…", "message": "…" }] }
 *
 * `errors` lists every problem of a request body at once, each with the JSON path of
 * the value it is about.
 */

export interface Problem {
  readonly path: string;
  readonly code: ErrorCode;
  readonly message: string;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function sendProblem(reply: FastifyReply, code: ErrorCode, detail?: string, errors?: readonly Problem[]): FastifyReply {
  const info = ERROR_CODES[code];
  return reply
    .code(info.httpStatus)
    .type(PROBLEM_CONTENT_TYPE)
    .send({ type: `urn:depot-gateway:error:${code}`, title: info.message, status: info.httpStatus, code, ...(detail ? { detail } : {}), ...(errors ? { errors } : {}) });
}

/** Answers every error of the routes in this scope as a problem. */
export function answerErrorsAsProblems(scope: FastifyInstance, log: Logger): void {
  scope.setErrorHandler((error: FastifyError, _request, reply) => {
    if (isGatewayError(error)) return sendProblem(reply, error.code, detailOf(error.message, error.code));
    if (error.validation) {
      const errors = error.validation.map((issue) => ({
        path: jsonPath(error.validationContext ?? 'body', issue.instancePath, issue.params),
        code: 'REQUEST_INVALID' as const,
        message: issue.message ?? 'is not valid',
      }));
      return sendProblem(reply, 'REQUEST_INVALID', `${errors.length} problem${errors.length === 1 ? '' : 's'} in the request`, errors);
    }
    const status = error.statusCode ?? 500;
    if (status === 429) return sendProblem(reply, 'TOO_MANY_REQUESTS', error.message);
    if (status >= 400 && status < 500) return sendProblem(reply, 'REQUEST_INVALID', error.message);
    log.error({ err: error }, 'REST request failed');
    return sendProblem(reply, 'INTERNAL_ERROR');
  });
}

/** The registered message is the title; the detail is what the error added to it. */
function detailOf(message: string, code: ErrorCode): string | undefined {
  const title = ERROR_CODES[code].message;
  const rest = message.startsWith(title) ? message.slice(title.length).trim() : message;
  return rest === '' ? undefined : rest;
}

/** `$.premium.monthly` for body `/premium/monthly`; a missing property is named in the path too. */
function jsonPath(context: string, instancePath: string, params: Record<string, unknown>): string {
  const root = context === 'body' ? '$' : `$${context}`;
  const steps = instancePath.split('/').slice(1).map((step) => (/^\d+$/.test(step) ? `[${step}]` : `.${step.replace(/~1/g, '/').replace(/~0/g, '~')}`));
  const extra = typeof params.missingProperty === 'string' ? `.${params.missingProperty}` : typeof params.additionalProperty === 'string' ? `.${params.additionalProperty}` : '';
  return `${root}${steps.join('')}${extra}`;
}
