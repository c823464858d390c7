import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TLSSocket } from 'node:tls';
import type { ServerOptions } from 'node:https';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayConfig } from '../../config/config.schema.ts';
import { PROJECT_ROOT } from '../../config/load-config.ts';
import { GatewayError } from '../../core/gateway-error.ts';
import type { IntakePort } from '../../channels/envelope.ts';
import type { PipelineDeps } from '../../pipeline/pipeline-deps.ts';
import { handleSsekRequest } from '../../channels/ssek/ssek-endpoint.ts';
import { faultOf, writeFaultEnvelope } from '../../channels/ssek/ssek-faults.ts';
import type { ClientCertificate, SsekDirectory } from '../../channels/ssek/ssek-parties.ts';
import { buildSsekWsdl } from '../../channels/ssek/ssek.wsdl.ts';

/**
 * The SSEK endpoint on the api port: POST /ssek takes SOAP 1.1 envelopes (text/xml or
 * application/soap+xml), GET /ssek?wsdl publishes the WSDL (its address from
 * `ssek.publicUrl`) and GET /ssek/xsd/<Name>.xsd the catalogue's schemas it includes,
 * byte for byte as in schemas/ (so their relative includes resolve beside them). Not
 * behind staff authentication: the SSEK header, the client certificate (mutual TLS) and
 * the WS-Security signature identify the sender. Every failure, including Fastify's own
 * (body too large, wrong content type), is answered as a SOAP fault with HTTP 500.
 */
export interface SsekRouteOptions {
  readonly config: Readonly<GatewayConfig>;
  readonly deps: PipelineDeps;
  readonly intake: IntakePort;
  readonly directory: SsekDirectory;
}

/** What a SOAP 1.1 envelope may be sent as (SSEK; application/soap+xml is SOAP 1.2's, accepted too). */
const SOAP_CONTENT_TYPES = ['text/xml', 'application/soap+xml', 'application/xml'];

/** Room for the envelope and its header around a document of the largest size. */
const ENVELOPE_ALLOWANCE = 256 * 1024;

export async function registerSsekRoutes(app: FastifyInstance, options: SsekRouteOptions): Promise<void> {
  const { config, deps } = options;
  const endpoint = {
    db: deps.db, documents: deps.documents, intake: options.intake, directory: options.directory, clock: deps.clock,
    maxXmlDepth: config.limits.maxXmlDepth, syncWaitMs: config.ssek.syncWaitMs,
    directQuery: {
      advisorFirms: new Map(config.counterparties.filter((c) => c.role === 'advisor-firm').map((c) => [c.id, c.organisationNumber])),
      parties: config,
    },
  };
  const operations = [
    ...deps.catalogue.names.flatMap((name) => {
      const type = deps.catalogue.get(name);
      return type ? [{ name, responseName: type.responseName }] : [];
    }),
    // A question answered at once (an advisor firm's direct query), not a document of the catalogue.
    { name: 'DirectQuery', responseName: 'EngagementResponse' },
  ];
  const schemas = readCatalogueSchemas(join(PROJECT_ROOT, 'schemas'));
  await app.register(async (ssek) => {
    // Every body is taken as bytes here, whatever its content type says: a sender posting
    // JSON or a form gets a SOAP fault telling it what to send, not a JSON parser's error.
    ssek.removeAllContentTypeParsers();
    ssek.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    ssek.setErrorHandler((error, _request, reply) => sendFault(reply, error instanceof GatewayError ? error : edgeError(error as { statusCode?: number; message: string })));

    ssek.get('/ssek', async (request, reply) => {
      if (!Object.hasOwn(request.query as object, 'wsdl')) {
        return reply.code(404).type('text/plain; charset=utf-8').send('The SSEK endpoint takes POST; its WSDL is at /ssek?wsdl.\n');
      }
      return reply.type('text/xml; charset=utf-8').send(buildSsekWsdl(publicUrl(config, ssek), operations));
    });

    ssek.get('/ssek/xsd/:file', async (request, reply) => {
      const schema = schemas.get((request.params as { file: string }).file);
      if (schema === undefined) {
        return reply.code(404).type('text/plain; charset=utf-8').send('No such schema; the WSDL at /ssek?wsdl names those there are.\n');
      }
      return reply.type('text/xml; charset=utf-8').send(schema);
    });

    ssek.post('/ssek', { bodyLimit: config.limits.maxDocumentBytes + ENVELOPE_ALLOWANCE }, async (request, reply) => {
      const contentType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (!Buffer.isBuffer(request.body) || !SOAP_CONTENT_TYPES.includes(contentType)) {
        throw new GatewayError('SSEK_ENVELOPE_INVALID', `Send the SOAP envelope as text/xml or application/soap+xml${contentType ? `, not ${contentType}` : ''}.`);
      }
      try {
        const answer = await handleSsekRequest(endpoint, request.body, clientCertificateOf(request));
        return await reply.type('text/xml; charset=utf-8').send(answer);
      } catch (error) {
        const fault = faultOf(error);
        if (fault.code === 'INTERNAL_ERROR') request.log.error({ err: error }, 'SSEK request failed');
        return sendFault(reply, error);
      }
    });
  });
}

/**
 * The endpoint's address in the WSDL: `ssek.publicUrl`, else this server's own
 * (scheme, `host`, `port`). Never the request's Host header, which the caller chooses:
 * a WSDL fetched with a forged Host would send the next client elsewhere.
 */
function publicUrl(config: Readonly<GatewayConfig>, app: FastifyInstance): string {
  if (config.ssek.publicUrl) return config.ssek.publicUrl;
  const address = app.server.address();
  const port = config.port || (address && typeof address === 'object' ? address.port : config.port);
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `${config.ssek.tls ? 'https' : 'http'}://${host}:${port}/ssek`;
}

/** The catalogue's XSDs by file name, read once: only these names are served, so no path reaches the disk. */
function readCatalogueSchemas(folder: string): ReadonlyMap<string, string> {
  const files = readdirSync(folder).filter((name) => /^[A-Za-z0-9_-]+\.xsd$/.test(name));
  return new Map(files.map((name) => [name, readFileSync(join(folder, name), 'utf8')]));
}

/**
 * The `https` server options for the api port when `ssek.tls` is set: our certificate,
 * and client certificates requested and checked against `clientCaPath`. A connection
 * without a (valid) client certificate is still accepted, for health checks and for
 * counterparties identified by SenderId alone; the SSEK endpoint decides per sender.
 */
export function ssekHttpsOptions(config: Readonly<GatewayConfig>): ServerOptions | undefined {
  const tls = config.ssek.tls;
  if (!tls) return undefined;
  const read = (path: string, setting: string) => {
    try {
      return readFileSync(resolve(path));
    } catch (error) {
      throw new GatewayError('CONFIG_INVALID', `ssek.tls.${setting}: cannot read ${path}: ${(error as Error).message}`, { cause: error });
    }
  };
  return {
    cert: read(tls.certPath, 'certPath'),
    key: read(tls.keyPath, 'keyPath'),
    ...(tls.clientCaPath ? { ca: read(tls.clientCaPath, 'clientCaPath'), requestCert: true, rejectUnauthorized: false } : {}),
  };
}

function clientCertificateOf(request: FastifyRequest): ClientCertificate | undefined {
  const socket = request.raw.socket;
  if (!(socket instanceof TLSSocket) || !socket.authorized) return undefined;
  const certificate = socket.getPeerCertificate();
  if (!certificate.fingerprint256) return undefined;
  const commonName = certificate.subject?.CN;
  return { subjectCommonName: Array.isArray(commonName) ? commonName[0] : commonName, fingerprint256: certificate.fingerprint256 };
}

function sendFault(reply: FastifyReply, error: unknown) {
  return reply.code(500).type('text/xml; charset=utf-8').send(writeFaultEnvelope(faultOf(error)));
}

/** A failure Fastify raised before the handler ran (too large, unreadable body …), as our error. */
function edgeError(error: { statusCode?: number; message: string }): GatewayError {
  if (error.statusCode === 413) return new GatewayError('DOCUMENT_TOO_LARGE', error.message);
  if (error.statusCode && error.statusCode < 500) return new GatewayError('SSEK_ENVELOPE_INVALID', error.message);
  return new GatewayError('INTERNAL_ERROR', error.message);
}
