import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { GatewayConfig } from '../../config/config.schema.ts';
import type { Database } from '../../ledger/database.ts';
import { ApiTokens, loadSigningKey } from './api-tokens.ts';
import { requireApiClient } from './api-auth.ts';
import { limitApiClients } from './api-client-limits.ts';
import { addApiSchemas } from './api-schemas.ts';
import { answerErrorsAsProblems } from './problem-details.ts';
import { registerOauthTokenRoute } from './oauth-token.routes.ts';
import { registerProductRoutes } from './products.routes.ts';
import { registerAdvisorRoutes } from './advisors.routes.ts';
import { registerInsuranceApplicationRoutes } from './insurance-applications.routes.ts';
import { registerPlanApplicationRoutes } from './plan-applications.routes.ts';
import { registerWithdrawalAccountRoutes } from './withdrawal-accounts.routes.ts';
import { registerWithdrawalInformationRoutes } from './withdrawal-information.routes.ts';
import { withConfiguredRates } from '../../core/charges/yield-tax-rates.ts';
import { registerWithdrawalRequestRoutes } from './withdrawal-requests.routes.ts';
import { registerPayoutRequestRoutes } from './payout-requests.routes.ts';
import { registerCustodianSwitchRoutes } from './custodian-switch.routes.ts';
import { registerSignCaseRoutes } from './sign-cases.routes.ts';
import { registerDirectQueryRoutes } from './direct-query.routes.ts';
import type { SignCaseSigning } from '../../requests/sign-case-signing.ts';

/**
 * The REST API for advisor firms and custodians (docs/rest.md), in its own scope of
 * the HTTP server: OAuth 2.0 client credentials at POST /oauth/token, a bearer token
 * on every other route, the access policy asked by each route, errors as RFC 9457
 * problems, and the OpenAPI description generated from the routes' own schemas at
 * /openapi.json with a reference page at /openapi.
 */
export interface RestApiOptions {
  readonly config: Readonly<GatewayConfig>;
  readonly db: Database;
  readonly log: Logger;
  readonly clock?: () => Date;
  /** Signing with BankID (./signing.ts), shared with the signing page. */
  readonly signing: SignCaseSigning;
  /** The signing page's address, which the signing links name. */
  readonly signingPageBaseUrl: () => string;
}

export async function registerRestApi(app: FastifyInstance, options: RestApiOptions): Promise<void> {
  const clock = options.clock ?? (() => new Date());
  const tokens = new ApiTokens(options.config, loadSigningKey(options.config));
  await app.register(async (api) => {
    await api.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'depot-gateway REST API', version: '1', description: 'Products, documents, funds, advisors, insurance and pension plan applications for advisor firms and custodians. Get a token at POST /oauth/token (client credentials) and send it as Authorization: Bearer.' },
        components: { securitySchemes: { clientCredentials: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: '/oauth/token', scopes: {} } } } } },
        security: [{ clientCredentials: [] }],
      },
      refResolver: { buildLocalReference: (json) => String(json.$id) },
    });
    await api.register(swaggerUi, { routePrefix: '/openapi' });
    api.get('/openapi.json', { schema: { hide: true } }, async () => api.swagger());
    // Requests are checked strictly and completely: an unknown field is an error (not
    // dropped), nothing is coerced, and every problem is reported, not only the first.
    const validator = new Ajv({ allErrors: true, removeAdditional: false, useDefaults: false, coerceTypes: false, strict: false });
    addFormats.default(validator);
    api.setValidatorCompiler(({ schema }) => validator.compile(schema));
    addApiSchemas(api, validator);
    answerErrorsAsProblems(api, options.log);
    await registerOauthTokenRoute(api, { tokens, requestsPerMinute: options.config.api.tokenRequestsPerMinute, clock });
    await api.register(async (authenticated) => {
      // A request's own logger (its reqId bound) is a pino child per request, and binding
      // through the redaction of personal numbers is a measurable part of a small GET.
      // It only pays when a line per request is written (debug, src/http/request-log.ts);
      // these routes log nothing of their own, so otherwise they share the REST API's logger.
      if (!options.log.isLevelEnabled('debug')) authenticated.setChildLoggerFactory((logger) => logger);
      requireApiClient(authenticated, tokens, clock);
      // Each client's rate and requests in flight (api.limits), before any route reads the database.
      limitApiClients(authenticated, { config: options.config, log: options.log });
      // A scope of their own: the catalogue's access hook is for the catalogue's routes only.
      await authenticated.register(async (catalogue) => registerProductRoutes(catalogue, { db: options.db, clock }));
      await registerAdvisorRoutes(authenticated, { db: options.db, clock });
      await registerInsuranceApplicationRoutes(authenticated, { config: options.config, db: options.db, clock });
      await registerPlanApplicationRoutes(authenticated, { config: options.config, db: options.db, clock });
      await registerWithdrawalAccountRoutes(authenticated, { db: options.db, clock });
      await registerWithdrawalInformationRoutes(authenticated, { db: options.db, clock, yieldTaxRates: withConfiguredRates(options.config.charges.yieldTaxRates) });
      await registerWithdrawalRequestRoutes(authenticated, { db: options.db, clock, yieldTaxRates: withConfiguredRates(options.config.charges.yieldTaxRates) });
      await registerPayoutRequestRoutes(authenticated, { db: options.db, clock });
      await registerCustodianSwitchRoutes(authenticated, {
        db: options.db, clock, custodians: new Set(options.config.counterparties.filter((c) => c.role === 'custodian').map((c) => c.id)),
      });
      await registerDirectQueryRoutes(authenticated, { db: options.db, clock, parties: options.config });
      await registerSignCaseRoutes(authenticated, {
        db: options.db, clock, signing: options.signing, links: { lifetimeHours: options.config.signingPage.linkLifetimeHours, baseUrl: options.signingPageBaseUrl },
      });
    });
  });
}
