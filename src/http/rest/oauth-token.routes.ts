import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { isGatewayError } from '../../core/gateway-error.ts';
import type { ApiTokens } from './api-tokens.ts';

/**
 * POST /oauth/token: the OAuth 2.0 token endpoint for the client credentials grant
 * (RFC 6749 §4.4). A client authenticates with HTTP Basic (client_secret_basic, the
 * default), with `client_id` and `client_secret` in the form (client_secret_post), or —
 * when the insurer configured its public key instead of a secret — with a JWT it signed
 * (private_key_jwt, RFC 7523: `client_assertion_type` and `client_assertion` in the
 * form), and gets a bearer token for the REST API.
 *
 * Answers use OAuth's own shape (RFC 6749 §5.1/§5.2), which every OAuth client library
 * reads, with our code beside `error`. Each client address may ask
 * `api.tokenRequestsPerMinute` times a minute: secrets cannot be guessed at speed.
 */
export interface OauthTokenRouteOptions {
  readonly tokens: ApiTokens;
  readonly requestsPerMinute: number;
  readonly clock: () => Date;
}

export async function registerOauthTokenRoute(app: FastifyInstance, options: OauthTokenRouteOptions): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(rateLimit, {
      max: options.requestsPerMinute,
      timeWindow: 60_000,
      errorResponseBuilder: (_request, context) => ({ statusCode: 429, error: 'slow_down', code: 'TOO_MANY_REQUESTS', error_description: `Too many token requests; retry after ${Math.ceil(context.ttl / 1000)} s.` }),
    });
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });
    scope.post('/oauth/token', {
      schema: {
        tags: ['authentication'],
        summary: 'Get an access token (OAuth 2.0 client credentials)',
        consumes: ['application/x-www-form-urlencoded'],
        body: {
          type: 'object',
          required: ['grant_type'],
          properties: {
            grant_type: { type: 'string' }, scope: { type: 'string' }, client_id: { type: 'string' }, client_secret: { type: 'string' },
            client_assertion_type: { type: 'string' }, client_assertion: { type: 'string' },
          },
        },
        response: {
          200: {
            type: 'object',
            required: ['access_token', 'token_type', 'expires_in'],
            properties: { access_token: { type: 'string' }, token_type: { type: 'string', const: 'Bearer' }, expires_in: { type: 'integer' } },
          },
        },
      },
      attachValidation: true,
    }, async (request, reply) => {
      void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      if (request.validationError) return oauthError(reply, 400, 'invalid_request', 'REQUEST_INVALID', 'Send grant_type=client_credentials as application/x-www-form-urlencoded.');
      const body = request.body as Record<string, string | undefined>;
      if (body.grant_type !== 'client_credentials') return oauthError(reply, 400, 'unsupported_grant_type', 'REQUEST_INVALID', 'Only grant_type=client_credentials is offered.');
      if (body.client_assertion !== undefined || body.client_assertion_type !== undefined) return assertionToken(request, reply, body, options);
      const credentials = clientCredentials(request.headers.authorization, body);
      if (credentials === 'both') return oauthError(reply, 400, 'invalid_request', 'REQUEST_INVALID', 'Authenticate one way: HTTP Basic or client_id/client_secret in the form, not both.');
      if (!credentials) {
        void reply.header('www-authenticate', 'Basic realm="depot-gateway"');
        return oauthError(reply, 401, 'invalid_client', 'API_CLIENT_INVALID', 'Authenticate with HTTP Basic: your client id and secret.');
      }
      try {
        const issued = await options.tokens.issue(credentials.id, credentials.secret, options.clock());
        return reply.send({ access_token: issued.accessToken, token_type: 'Bearer', expires_in: issued.expiresIn });
      } catch (error) {
        if (!isGatewayError(error) || error.code !== 'API_CLIENT_INVALID') throw error;
        request.log.warn({ clientId: credentials.id }, 'token refused: unknown client or wrong secret');
        void reply.header('www-authenticate', 'Basic realm="depot-gateway"');
        return oauthError(reply, 401, 'invalid_client', 'API_CLIENT_INVALID', 'Unknown client or wrong secret.');
      }
    });
  });
}

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** private_key_jwt: the client assertion alone authenticates; a client_id beside it must name the same client. */
async function assertionToken(request: FastifyRequest, reply: FastifyReply, body: Record<string, string | undefined>, options: OauthTokenRouteOptions): Promise<FastifyReply> {
  if (body.client_assertion_type !== JWT_BEARER || !body.client_assertion) {
    return oauthError(reply, 400, 'invalid_request', 'REQUEST_INVALID', `Send client_assertion_type=${JWT_BEARER} with a client_assertion.`);
  }
  if (request.headers.authorization !== undefined || body.client_secret !== undefined) {
    return oauthError(reply, 400, 'invalid_request', 'REQUEST_INVALID', 'Authenticate one way: a client assertion, not a secret as well.');
  }
  try {
    const issued = await options.tokens.issueForAssertion(body.client_assertion, options.clock(), body.client_id);
    return reply.send({ access_token: issued.accessToken, token_type: 'Bearer', expires_in: issued.expiresIn });
  } catch (error) {
    if (!isGatewayError(error) || error.code !== 'API_CLIENT_INVALID') throw error;
    request.log.warn({ reason: error.message }, 'token refused: client assertion not accepted');
    return oauthError(reply, 401, 'invalid_client', 'API_CLIENT_INVALID', error.message);
  }
}

function oauthError(reply: FastifyReply, status: number, error: string, code: string, description: string): FastifyReply {
  return reply.code(status).send({ error, error_description: description, code });
}

/** client_secret_basic (id and secret form-URL-encoded, RFC 6749 §2.3.1) or client_secret_post. */
function clientCredentials(authorization: string | undefined, body: Record<string, string | undefined>): { id: string; secret: string } | 'both' | undefined {
  const basic = /^Basic ([A-Za-z0-9+/]+=*)$/i.exec(authorization ?? '');
  const inForm = body.client_id !== undefined || body.client_secret !== undefined;
  if (basic && inForm) return 'both';
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return undefined;
    try {
      return { id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')), secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')) };
    } catch {
      return undefined;
    }
  }
  if (body.client_id && body.client_secret) return { id: body.client_id, secret: body.client_secret };
  return undefined;
}
