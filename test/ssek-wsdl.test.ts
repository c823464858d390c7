/**
 * The SSEK WSDL as a generated client sees it: the `soap` client built from GET
 * /ssek?wsdl goes through every flow (sync response, receipt when the sync wait is
 * over, pull then GetResponse, a TxId sent again with another body, a duplicate
 * answered with MessageRejected), signing each request as a sender's WS-Security
 * stack does, and every answer it gets is valid against the WSDL's own types. Every
 * schema the WSDL names is fetched from the gateway and compiled. Real PostgreSQL,
 * Redis, workers and HTTP servers on loopback.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import libxml from 'libxmljs2';
import soap from 'soap';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { startTestGateway, waitFor, type TestGateway } from './support/harness.ts';
import { INSURER, SOAP, SSEK, baseUrl, counterparties, feeDocument, signEnvelope, ssekHeader, withoutProlog } from './support/ssek-envelopes.ts';
import { makeTestCertificates, type TestCertificates } from './support/certificates.ts';

const CATALOGUE = 'urn:se:depot-gateway:v1';
const NS = { wsdl: 'http://schemas.xmlsoap.org/wsdl/', xsd: 'http://www.w3.org/2001/XMLSchema', soap: SOAP, ssek: SSEK };
const FLOW_PULL = `<Flow xmlns="${CATALOGUE}">pull</Flow>`;

type SoapClient = Awaited<ReturnType<typeof soap.createClientAsync>>;
type Parsed = Record<string, unknown>;
/** What an operation gives: the parsed output (undefined when another answer came), the raw answer, the parsed SOAP header. */
type Answer = [Parsed | undefined, string, Parsed | undefined];

interface SsekClient {
  readonly client: SoapClient;
  /** Calls `operation` with `document` as its body, under `txId` (default a new one), with `extraHeader` beside the SSEK header. */
  send(operation: string, document: string, options?: { txId?: string; extraHeader?: string }): Promise<Answer>;
}

/** A client built from the gateway's WSDL that signs every request with `key`. */
async function clientFor(url: string, key: string): Promise<SsekClient> {
  const client = await soap.createClientAsync(`${url}?wsdl`);
  client.setSecurity({ postProcess: (xml: string) => signEnvelope(xml, { key }) } as unknown as soap.ISecurity);
  return {
    client,
    async send(operation, document, options = {}) {
      client.clearSoapHeaders();
      client.addSoapHeader(ssekHeader({ txId: options.txId ?? randomUUID() }) + (options.extraHeader ?? ''));
      const call = client[`${operation}Async`] as (args: unknown) => Promise<Answer>;
      return call({ _xml: withoutProlog(document) });
    },
  };
}

/** The answer's body as the client's WSDL types read it, whichever document it is. */
function bodyOf(client: SoapClient, raw: string): Record<string, Parsed> {
  return (client.wsdl.xmlToObject(raw) as { Body: Record<string, Parsed> }).Body;
}

const getResponse = (txId: string) => `<GetResponse xmlns="${CATALOGUE}"><TxId>${txId}</TxId></GetResponse>`;

/** The WSDL, every schema it names (fetched from the gateway, nested includes too), and its own schemas compiled. */
interface WsdlTypes {
  readonly wsdl: libxml.Document;
  /** The schemaLocations of the WSDL's own schemas, as written. */
  readonly locations: readonly string[];
  /** Every schema fetched, by URL: the HTTP status, content type and text. */
  readonly fetched: ReadonlyMap<string, { status: number; contentType: string; text: string }>;
  /** The WSDL's schemas by target namespace, their includes read from local copies of what was fetched. */
  readonly schemas: ReadonlyMap<string, libxml.Document>;
}

async function loadWsdlTypes(url: string, folder: string): Promise<WsdlTypes> {
  const wsdl = libxml.parseXml(await (await fetch(`${url}?wsdl`)).text(), { nonet: true });
  const includes = wsdl.find<libxml.Attribute>('/wsdl:definitions/wsdl:types/xsd:schema/xsd:include/@schemaLocation', NS);
  const locations = includes.map((include) => include.value());
  const fetched = new Map<string, { status: number; contentType: string; text: string }>();
  const pending = [...locations];
  for (let location = pending.shift(); location !== undefined; location = pending.shift()) {
    if (fetched.has(location)) continue;
    const response = await fetch(location);
    const text = await response.text();
    fetched.set(location, { status: response.status, contentType: response.headers.get('content-type') ?? '', text });
    if (response.status !== 200) continue;
    await writeFile(join(folder, basename(new URL(location).pathname)), text);
    const nested = libxml.parseXml(text, { nonet: true }).find<libxml.Attribute>('//xsd:include/@schemaLocation', NS);
    pending.push(...nested.map((include) => new URL(include.value(), location).href));
  }
  for (const include of includes) include.value(basename(new URL(include.value()).pathname));
  const schemas = new Map(wsdl.find<libxml.Element>('/wsdl:definitions/wsdl:types/xsd:schema', NS).map((schema) => [
    schema.attr('targetNamespace')?.value() ?? '',
    libxml.parseXml(standalone(schema), { baseUrl: join(folder, 'wsdl-types.xsd'), nonet: true }),
  ]));
  return { wsdl, locations, fetched, schemas };
}

/** An element as a document of its own: its text with the namespace declarations it inherits added to it. */
function standalone(element: libxml.Element): string {
  const own = new Set(element.namespaces(true).map((ns) => ns.prefix()));
  const inherited = element.namespaces().filter((ns) => !own.has(ns.prefix()));
  const declarations = inherited.map((ns) => ` ${ns.prefix() ? `xmlns:${ns.prefix()}` : 'xmlns'}="${ns.href()}"`).join('');
  return element.toString().replace(/^<[^\s/>]+/, (open) => `${open}${declarations}`);
}

describe('SSEK WSDL used by a generated SOAP client', () => {
  let certificates: TestCertificates;
  let folder: string;
  let gateway: TestGateway;
  /** A gateway without workers, whose sync wait is short: a response is never ready there. */
  let idle: TestGateway;
  let key: string;
  let url: string;
  let types: WsdlTypes;

  /** Asserts that the answer's SSEK header and body document are valid against the WSDL's own schemas. */
  function assertValidAgainstWsdl(raw: string): void {
    const envelope = libxml.parseXml(raw, { nonet: true });
    const parts: [string, string][] = [['/soap:Envelope/soap:Header/ssek:SSEK', SSEK], ['/soap:Envelope/soap:Body/*', CATALOGUE]];
    for (const [path, namespace] of parts) {
      const element = envelope.get<libxml.Element>(path, NS);
      assert.ok(element, `the answer has ${path}`);
      const document = libxml.parseXml(standalone(element), { nonet: true });
      assert.ok(document.validate(types.schemas.get(namespace)!), `${element.name()}: ${document.validationErrors.map((e) => e.message).join('; ')}`);
    }
  }

  beforeAll(async () => {
    certificates = await makeTestCertificates();
    folder = await mkdtemp(join(tmpdir(), 'dg-wsdl-'));
    const signing = await certificates.signing('employer-signing');
    key = await readFile(signing.key, 'utf8');
    const settings = { counterparties: counterparties({ 'demo-employer': { signingCertificatePath: signing.cert } }) };
    [gateway, idle] = await Promise.all([
      startTestGateway({ roles: ['api', 'worker'], settings }),
      startTestGateway({ roles: ['api'], settings: { ...settings, ssek: { syncWaitMs: 50 } } }),
    ]);
    url = `${baseUrl(gateway)}/ssek`;
    types = await loadWsdlTypes(url, folder);
  });
  afterAll(async () => {
    await Promise.all([gateway?.destroy(), idle?.destroy()]);
    await certificates?.remove();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  test('sync: the client returns the typed ChangeFeeResponse and the SSEK header of the answer', async () => {
    const { send } = await clientFor(url, key);
    const txId = randomUUID();
    const [result, raw, header] = await send('ChangeFee', feeDocument('WSDL-SYNC-1', '410'), { txId });
    assert.ok(result, raw);
    const responseHeader = result.Header as Parsed;
    assert.equal(responseHeader.InResponseTo, 'WSDL-SYNC-1');
    assert.equal(responseHeader.Status, 'Accepted');
    // Typed by the XSDs, not read as text: a dateTime is a Date, an unbounded element an array even when alone.
    assert.ok(responseHeader.CreatedAt instanceof Date, 'CreatedAt is read as xs:dateTime');
    assert.deepEqual(result.Item, [{ ItemId: '1', Status: 'Accepted' }]);
    const ssek = header?.SSEK as { SenderId: { $value: string }; TxId: string } | undefined;
    assert.equal(ssek?.SenderId.$value, INSURER);
    assert.equal(ssek?.TxId, txId);
    assertValidAgainstWsdl(raw);
  });

  test('sync wait over: the client reads the Receipt, and GetResponse gives it again until the response is ready', async () => {
    const { client, send } = await clientFor(`${baseUrl(idle)}/ssek`, key);
    const txId = randomUUID();
    const [result, raw] = await send('ChangeFee', feeDocument('WSDL-RECEIPT-1', '420'), { txId });
    assert.equal(result, undefined, 'the output is ChangeFeeResponse; a Receipt came');
    const receipt = bodyOf(client, raw).Receipt;
    const { rows } = await idle.deps.db.query<{ id: string }>('SELECT id FROM messages WHERE external_id = $1', [txId]);
    assert.deepEqual(receipt, { MessageId: rows[0]?.id, TxId: txId, Status: 'Received', Flow: 'sync' });
    assertValidAgainstWsdl(raw);

    const [pulled, pulledRaw] = await send('GetResponse', getResponse(txId));
    assert.deepEqual(pulled, { MessageId: rows[0]?.id, TxId: txId, Status: 'Received', Flow: 'pull' }, 'the Receipt is GetResponse\'s output');
    assertValidAgainstWsdl(pulledRaw);
  });

  test('pull: a Receipt, then GetResponse gives the typed response', async () => {
    const { client, send } = await clientFor(url, key);
    const txId = randomUUID();
    const [, raw] = await send('ChangeFee', feeDocument('WSDL-PULL-1', '430'), { txId, extraHeader: FLOW_PULL });
    const receipt = bodyOf(client, raw).Receipt;
    assert.equal(receipt?.TxId, txId);
    assert.equal(receipt?.Flow, 'pull');
    assert.match(String(receipt?.MessageId), /^[0-9A-Z]{26}$/);
    assertValidAgainstWsdl(raw);
    const pulled = await waitFor(async () => {
      const [, answer] = await send('GetResponse', getResponse(txId));
      return bodyOf(client, answer).ChangeFeeResponse && answer;
    }, 'the pulled response');
    const response = bodyOf(client, pulled).ChangeFeeResponse;
    const responseHeader = response?.Header as Parsed;
    assert.equal(responseHeader.GatewayMessageId, receipt?.MessageId);
    assert.equal(responseHeader.InResponseTo, 'WSDL-PULL-1');
    assert.equal(responseHeader.Status, 'Accepted');
    assert.ok(responseHeader.CreatedAt instanceof Date, 'read with its XSD type');
    assertValidAgainstWsdl(pulled);
  });

  test('another body under a used TxId: the client raises the SOAP fault, the gateway\'s code in its detail', async () => {
    const { send } = await clientFor(url, key);
    const txId = randomUUID();
    const [first] = await send('ChangeFee', feeDocument('WSDL-DUP-1', '440'), { txId });
    assert.equal((first?.Header as Parsed).Status, 'Accepted');
    await assert.rejects(send('ChangeFee', feeDocument('WSDL-DUP-2', '450'), { txId }), (error: { response?: { status: number }; root?: unknown }) => {
      const fault = (error.root as { Envelope: { Body: { Fault: { faultcode: string; faultstring: { $value: string }; detail: { ErrorCode: string } } } } }).Envelope.Body.Fault;
      assert.equal(error.response?.status, 500);
      assert.equal(fault.faultcode, 'ssek:TxIdAlreadyReceived');
      assert.equal(fault.detail.ErrorCode, 'SSEK_TX_ID_ALREADY_RECEIVED');
      assert.match(fault.faultstring.$value, new RegExp(`TxId ${txId} was received before with another document`));
      return true;
    });
  });

  test('a duplicate document under a new TxId: the client reads MessageRejected', async () => {
    const { client, send } = await clientFor(url, key);
    const [first] = await send('ChangeFee', feeDocument('WSDL-REJ-1', '460'));
    assert.equal((first?.Header as Parsed).Status, 'Accepted');
    const [result, raw] = await send('ChangeFee', feeDocument('WSDL-REJ-1', '460'));
    assert.equal(result, undefined, 'the output is ChangeFeeResponse; MessageRejected came');
    const rejected = bodyOf(client, raw).MessageRejected;
    assert.equal((rejected?.Header as Parsed).InResponseTo, 'WSDL-REJ-1');
    assert.equal((rejected?.Header as Parsed).Status, 'Rejected');
    // The soap client types only the elements an operation names, so a lone Error is an object here.
    const [error] = [rejected?.Error].flat() as Parsed[];
    assert.equal(error?.Code, 'DUPLICATE_DOCUMENT');
    assertValidAgainstWsdl(raw);
  });

  test('the WSDL is well-formed, the soap client takes it, and it declares every answer with the SSEK header', async () => {
    assert.equal(types.wsdl.root()?.name(), 'definitions');
    const { client } = await clientFor(url, key);
    const described = (client.describe() as Record<string, Record<string, Record<string, { input: Parsed; output: Parsed }>>>).DepotGatewaySsek?.SsekPort ?? {};
    const catalogue = gateway.deps.catalogue;
    assert.deepEqual(Object.keys(described).sort(), [...catalogue.names, 'GetResponse', 'DirectQuery'].sort());
    assert.ok('Item[]' in (described.ChangeFee?.input ?? {}), 'ChangeFee is typed by ChangeFee.xsd');
    assert.deepEqual(Object.keys(described.GetResponse?.output ?? {}), ['MessageId', 'TxId', 'Status', 'Flow']);
    const messages = types.wsdl.find<libxml.Attribute>('/wsdl:definitions/wsdl:message/wsdl:part/@element', NS).map((element) => element.value());
    for (const answer of ['tns:Receipt', 'tns:MessageRejected', 'tns:ErrorCode', 'ssek:SSEK']) assert.ok(messages.includes(answer), `a message carries ${answer}`);
    const bound = types.wsdl.find('/wsdl:definitions/wsdl:binding/wsdl:operation/wsdl:*[self::wsdl:input or self::wsdl:output]/*[local-name()="header"]', NS);
    assert.equal(bound.length, 2 * (catalogue.names.length + 2), 'the SSEK header is bound in every input and output (the catalogue, GetResponse and DirectQuery)');
  });

  test('every schema the WSDL names is served by the gateway as in schemas/, and compiles', async () => {
    const catalogue = gateway.deps.catalogue;
    const documents = [...catalogue.names, ...catalogue.names.map((name) => catalogue.get(name)!.responseName), 'MessageRejected', 'DirectQuery', 'EngagementResponse'];
    assert.deepEqual(new Set(types.locations), new Set(documents.map((name) => `${url}/xsd/${name}.xsd`)));
    assert.ok(types.fetched.has(`${url}/xsd/Types.xsd`), 'the includes of the included schemas are fetched from the gateway too');
    for (const [location, served] of types.fetched) {
      assert.equal(served.status, 200, location);
      assert.match(served.contentType, /^text\/xml/, location);
      assert.equal(served.text, await readFile(join(PROJECT_ROOT, 'schemas', basename(location)), 'utf8'), location);
      const schema = libxml.parseXml(served.text, { baseUrl: join(folder, basename(location)), nonet: true });
      assert.doesNotThrow(() => libxml.parseXml('<NotADocument/>').validate(schema), `${location} compiles`);
    }
    // The WSDL's own schemas compile with those includes, and type the requests as well as the answers.
    const fixture = await readFile(join(PROJECT_ROOT, 'fixtures/ChangeFee/valid/multi-item.xml'), 'utf8');
    const request = libxml.parseXml(fixture, { nonet: true });
    assert.ok(request.validate(types.schemas.get(CATALOGUE)!), request.validationErrors.map((e) => e.message).join('; '));
    for (const name of ['Nope.xsd', '..%2Fpackage.json', 'Types.xsd.bak']) {
      assert.equal((await fetch(`${url}/xsd/${name}`)).status, 404, name);
    }
  });
});
