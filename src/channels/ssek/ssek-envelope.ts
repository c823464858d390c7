import { SaxesParser } from 'saxes';
import { inspectXml } from '../../messages/xml-gate.ts';
import { childOf, type XmlElement } from '../../messages/xml-element.ts';
import { CATALOGUE_NAMESPACE } from '../../messages/catalogue-namespace.ts';
import { GatewayError } from '../../core/gateway-error.ts';

/**
 * Reads an incoming SSEK request: a SOAP 1.1 envelope with the `ssek:SSEK` header and
 * one document in the body. The bytes first pass the XML gate (UTF-8 only, no DTD, no
 * entity declarations, bounded depth), so nothing hostile reaches a second parser. The
 * body's document is then cut out of the envelope text unchanged, with the namespace
 * declarations it inherits from the envelope added to its root, so it reads as the
 * same document the sender would drop in a folder and hashes the same on a repeat.
 * Nothing here decides whether the sender is known: that is the route's business.
 */
export const SOAP_NAMESPACE = 'http://schemas.xmlsoap.org/soap/envelope/';
export const SSEK_NAMESPACE = 'http://schemas.ssek.org/ssek/2006-05-10/';
export const WSSE_NAMESPACE = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd';
export const DSIG_NAMESPACE = 'http://www.w3.org/2000/09/xmldsig#';
export const WSU_NAMESPACE = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd';

/** One party id of the SSEK header, e.g. `<SenderId ssek:Type="ORGNR">5561234567</SenderId>`. */
export interface SsekPartyId {
  readonly type: string | undefined;
  readonly value: string;
}

export type SsekFlow = 'sync' | 'pull' | 'push';

/** What the route needs of one request envelope. */
export interface SsekRequest {
  /** The envelope as text, for signature verification. */
  readonly text: string;
  readonly senderId: SsekPartyId | undefined;
  readonly receiverId: SsekPartyId | undefined;
  /** The TxId as sent (maybe empty or malformed: the route checks it). */
  readonly txId: string | undefined;
  /** The flow asked for in a `<Flow>` header element of our namespace, if any. */
  readonly flow: SsekFlow | undefined;
  /** Root element name and namespace of the body's document. */
  readonly documentName: string;
  readonly documentNamespace: string;
  readonly documentRoot: XmlElement;
  /** The body's document as its own XML text. */
  readonly document: string;
  /** The soap:Body's Id attribute (wsu:Id), which a WS-Security signature refers to. */
  readonly bodyId: string | undefined;
  /** The ssek:SSEK header's Id attribute (wsu:Id): the signature must refer to it too. */
  readonly headerId: string | undefined;
  /** The wsu:Timestamp of the wsse:Security header, if any. */
  readonly timestamp: WsuTimestamp | undefined;
  /** The ds:Signature element of the wsse:Security header as its own XML text, if any. */
  readonly signature: string | undefined;
}

/** A wsu:Timestamp as sent: its wsu:Id and the text of Created and Expires. */
export interface WsuTimestamp {
  readonly id: string | undefined;
  readonly created: string | undefined;
  readonly expires: string | undefined;
}

const TX_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a TxId in the SSEK form: a UUID. */
export function isValidTxId(txId: string | undefined): txId is string {
  return txId !== undefined && TX_ID.test(txId);
}

/** Parses a request envelope; throws GatewayError('SSEK_ENVELOPE_INVALID') with a reason the sender can act on. */
export function parseSsekRequest(bytes: Uint8Array, maxDepth: number): SsekRequest {
  const gate = inspectXml(bytes, { maxDepth: maxDepth + 2 });
  if (!gate.ok) {
    throw new GatewayError('SSEK_ENVELOPE_INVALID', `${gate.text}${gate.line ? ` (line ${gate.line})` : ''}`, { details: { gateCode: gate.code } });
  }
  const envelope = gate.root;
  if (envelope.name !== 'Envelope' || envelope.ns !== SOAP_NAMESPACE) {
    throw invalid(`The root element must be a SOAP 1.1 Envelope in ${SOAP_NAMESPACE}; it is {${envelope.ns}}${envelope.name}.`);
  }
  // One of each: a second Body or header block could carry what the signature does not cover.
  const header = onlyOne(envelope.children, SOAP_NAMESPACE, 'Header', 'soap:Header');
  const body = onlyOne(envelope.children, SOAP_NAMESPACE, 'Body', 'soap:Body');
  if (!body) throw invalid('The envelope has no soap:Body.');
  const [document, ...more] = body.children;
  if (!document || more.length > 0) throw invalid('The soap:Body must hold exactly one document.');
  const ssek = header && onlyOne(header.children, SSEK_NAMESPACE, 'SSEK', 'ssek:SSEK header');
  const security = header && onlyOne(header.children, WSSE_NAMESPACE, 'Security', 'wsse:Security header');
  const timestamp = security && onlyOne(security.children, WSU_NAMESPACE, 'Timestamp', 'wsu:Timestamp');
  const flowText = header?.children.find((child) => child.name === 'Flow' && child.ns === CATALOGUE_NAMESPACE)?.text.trim();
  if (flowText !== undefined && !['sync', 'pull', 'push'].includes(flowText)) throw invalid(`<Flow> must be sync, pull or push; it is "${flowText}".`);
  // The document keeps only the envelope's declarations it uses; the signature keeps all, as canonicalization may see them.
  const cut = cutElements(gate.text, [
    { matches: (path) => path.length === 3 && path[1] === `${SOAP_NAMESPACE} Body`, onlyUsedNamespaces: true },
    { matches: (path) => path.length === 4 && path[2] === `${WSSE_NAMESPACE} Security` && path[3] === `${DSIG_NAMESPACE} Signature`, onlyUsedNamespaces: false },
  ]);
  return {
    text: gate.text,
    senderId: ssek ? partyId(ssek, 'SenderId') : undefined,
    receiverId: ssek ? partyId(ssek, 'ReceiverId') : undefined,
    txId: ssek ? ssekChild(ssek, 'TxId')?.text.trim() : undefined,
    flow: flowText as SsekFlow | undefined,
    documentName: document.name,
    documentNamespace: document.ns,
    documentRoot: document,
    document: cut[0] ?? '',
    bodyId: body.attrs.Id,
    headerId: ssek?.attrs.Id,
    timestamp: timestamp && {
      id: timestamp.attrs.Id,
      created: timestamp.children.find((child) => child.name === 'Created' && child.ns === WSU_NAMESPACE)?.text.trim(),
      expires: timestamp.children.find((child) => child.name === 'Expires' && child.ns === WSU_NAMESPACE)?.text.trim(),
    },
    signature: security ? cut[1] : undefined,
  };
}

function invalid(text: string): GatewayError {
  return new GatewayError('SSEK_ENVELOPE_INVALID', text);
}

/** The one child with this name; a second is refused. */
function onlyOne(children: readonly XmlElement[], ns: string, name: string, label: string): XmlElement | undefined {
  const [first, second] = children.filter((child) => child.name === name && child.ns === ns);
  if (second) throw invalid(`The envelope has more than one ${label}; send exactly one.`);
  return first;
}

/** SSEK header children are in the SSEK namespace; some senders leave them unqualified. */
function ssekChild(ssek: XmlElement, name: string): XmlElement | undefined {
  return ssek.children.find((child) => child.name === name && (child.ns === SSEK_NAMESPACE || child.ns === '')) ?? childOf(ssek, name);
}

function partyId(ssek: XmlElement, name: string): SsekPartyId | undefined {
  const element = ssekChild(ssek, name);
  const value = element?.text.trim();
  return element && value ? { type: element.attrs.Type, value } : undefined;
}

/** Which element to cut out, and whether it keeps only the inherited declarations it uses. */
interface Wanted {
  readonly matches: (path: readonly string[]) => boolean;
  readonly onlyUsedNamespaces: boolean;
}

/**
 * The first element matching each predicate (given its path of "namespace local"
 * names from the root), cut out of the text with the namespace declarations it
 * inherits added to its start tag. The text has passed the XML gate already.
 */
function cutElements(text: string, wanted: readonly Wanted[]): (string | undefined)[] {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const found: (string | undefined)[] = wanted.map(() => undefined);
  const path: string[] = [];
  const scopes: Map<string, string>[] = [new Map()];
  const open: { index: number; depth: number; start: number; qname: string; inherited: Map<string, string>; used: Set<string> }[] = [];
  const close = () => {
    const entry = open.at(-1);
    if (entry && entry.depth === path.length) {
      open.pop();
      const head = entry.start + 1 + entry.qname.length;
      const kept = [...entry.inherited].filter(([prefix]) => !wanted[entry.index]?.onlyUsedNamespaces || entry.used.has(prefix));
      const declarations = kept.map(([prefix, uri]) => ` ${prefix ? `xmlns:${prefix}` : 'xmlns'}="${escapeAttribute(uri)}"`).join('');
      found[entry.index] = `${text.slice(entry.start, head)}${declarations}${text.slice(head, parser.position)}`;
    }
    path.pop();
    scopes.pop();
  };
  parser.on('opentag', (tag) => {
    const parentScope = scopes.at(-1) ?? new Map<string, string>();
    const declared = new Map<string, string>();
    for (const attribute of Object.values(tag.attributes)) {
      if (attribute.prefix === 'xmlns') declared.set(attribute.local, attribute.value);
      else if (attribute.name === 'xmlns') declared.set('', attribute.value);
    }
    scopes.push(new Map([...parentScope, ...declared]));
    path.push(`${tag.uri} ${tag.local}`);
    const index = wanted.findIndex((want, i) => found[i] === undefined && !open.some((o) => o.index === i) && want.matches(path));
    if (index >= 0) {
      const inherited = new Map([...parentScope].filter(([prefix, uri]) => !declared.has(prefix) && uri !== ''));
      open.push({ index, depth: path.length, start: text.lastIndexOf('<', parser.position - 1), qname: tag.name, inherited, used: new Set() });
    }
    for (const entry of open) {
      entry.used.add(tag.prefix);
      for (const attribute of Object.values(tag.attributes)) if (attribute.prefix && attribute.prefix !== 'xmlns') entry.used.add(attribute.prefix);
    }
  });
  // Fires for self-closing tags too, right after their opentag.
  parser.on('closetag', () => close());
  parser.write(text).close();
  return found;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
