/**
 * What every part of the HTTP server is built from (the REST API, the staff API, the
 * console, the SSEK endpoint): server.ts builds the one Fastify instance from these
 * options and hands them to each part's routes, which import them from here.
 */
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/config.schema.ts';
import type { IntakePort } from '../channels/envelope.ts';
import type { PipelineDeps } from '../pipeline/pipeline-deps.ts';
import type { PipelineQueues } from '../pipeline/queues.ts';
import type { SsekDirectory } from '../channels/ssek/ssek-parties.ts';

export interface HttpServerOptions {
  readonly config: Readonly<GatewayConfig>;
  readonly deps: PipelineDeps;
  readonly intake: IntakePort;
  readonly queues: PipelineQueues | undefined;
  readonly log: Logger;
  /** Who is who on the SSEK endpoint; built from the config when not given. */
  readonly ssekDirectory?: SsekDirectory;
}

/** One method and URL pattern the server answers (`/api/messages/:id`). */
export interface ServedRoute {
  readonly method: string;
  readonly url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Every route the server answers, as registered, plugins' routes included: the
     * route-authentication test walks all of them, so a route added later is checked too.
     */
    readonly servedRoutes: readonly ServedRoute[];
  }
}
