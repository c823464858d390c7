import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiCaller } from '../../core/access.policy.ts';
import { GatewayError } from '../../core/gateway-error.ts';
import type { ApiTokens } from './api-tokens.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The API client the bearer token stands for; set on every route of the REST API. */
    apiCaller?: ApiCaller;
  }
}

/**
 * Every route registered in this scope needs `Authorization: Bearer <token>` from
 * `POST /oauth/token`; without one it answers 401 API_AUTHENTICATION_REQUIRED before
 * the route runs. Which data the caller may then see is the access policy's decision
 * (src/core/access.policy.ts), asked by the route through `callerOf`.
 */
export function requireApiClient(scope: FastifyInstance, tokens: ApiTokens, clock: () => Date): void {
  scope.addHook('onRequest', async (request, reply) => {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(header);
    if (!match) {
      void reply.header('www-authenticate', 'Bearer realm="depot-gateway"');
      throw new GatewayError('API_AUTHENTICATION_REQUIRED', 'Send Authorization: Bearer <token> from POST /oauth/token.');
    }
    try {
      request.apiCaller = await tokens.verify(match[1]!, clock());
    } catch (error) {
      void reply.header('www-authenticate', 'Bearer realm="depot-gateway", error="invalid_token"');
      throw error;
    }
  });
}

/** The authenticated caller of a route in a `requireApiClient` scope. */
export function callerOf(request: FastifyRequest): ApiCaller {
  if (!request.apiCaller) throw new GatewayError('API_AUTHENTICATION_REQUIRED');
  return request.apiCaller;
}

/**
 * The one answer for what the caller may not see and for what does not exist: 404
 * RESOURCE_NOT_FOUND with no detail, so that nothing in it (not even the id asked for)
 * tells the two apart.
 */
export function notAvailable(): GatewayError {
  return new GatewayError('RESOURCE_NOT_FOUND');
}
