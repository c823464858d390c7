import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { isGatewayError } from '../core/gateway-error.ts';
import type { ErrorCode } from '../core/error-codes.ts';

/**
 * The error handler of the gateway's HTTP servers: a GatewayError answered with its
 * registered status and code (and Retry-After when it has one), anything else with the
 * code for its status; a 5xx is logged.
 */
export function answerErrors(log: Logger): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  return (error, _request, reply) => {
    if (isGatewayError(error)) {
      const retryAfter = error.details.retryAfterSeconds;
      if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
      return reply.code(error.httpStatus).send({ code: error.code, message: error.message });
    }
    const status = error.statusCode ?? 500;
    if (status >= 500) log.error({ err: error }, 'request failed');
    return reply.code(status).send({ code: edgeCode(status), message: error.message });
  };
}

/** Our code for an error Fastify or a plugin raised before our handlers ran. */
function edgeCode(status: number): ErrorCode {
  if (status === 401) return 'STAFF_AUTHENTICATION_REQUIRED';
  if (status === 413) return 'DOCUMENT_TOO_LARGE';
  if (status >= 400 && status < 500) return 'REQUEST_INVALID';
  return 'INTERNAL_ERROR';
}
