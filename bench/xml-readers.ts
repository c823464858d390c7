/**
 * `npm run bench -- xml-readers`: what reading a ~2 KB SalaryAdjustment costs the XML
 * gate as it is (saxes, src/messages/xml-gate.ts) and fast-xml-parser doing the same job
 * — refuse DTDs and entity declarations, cap the nesting, refuse what is not
 * well-formed (its XMLValidator), and build the gate's element tree with namespaces
 * and lines (its XMLParser, processEntities off, preserveOrder, captureMetaData) — and
 * what each makes of hostile and broken input. The design card names fast-xml-parser;
 * the gateway does not depend on it, so it is installed only for this measurement:
 * `npm install --no-save fast-xml-parser`, or BENCH_FAST_XML_PARSER=<its folder>.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { classifyDoctype, inspectXml, reject, type GatePass, type GateRejection } from '../src/messages/xml-gate.ts';
import type { XmlElement } from '../src/messages/xml-element.ts';
import { benchAgreements, buildDocuments } from './workload.ts';
import { envNumber } from './support.ts';

const MAX_DEPTH = 32;
const ROUNDS = Math.round(envNumber('BENCH_XML_ROUNDS', 7));
const DOCUMENTS = Math.round(envNumber('BENCH_XML_DOCUMENTS', 2_000));
const log = (text: string) => process.stdout.write(`${text}\n`);

/** What this measurement uses of fast-xml-parser (not a dependency, so not typed by its package). */
interface Fxp {
  readonly version: string;
  readonly XMLParser: (new (options: object) => { parse(text: string): unknown }) & { getMetaDataSymbol(): symbol };
  readonly XMLValidator: { validate(text: string): true | { err: { msg: string; line: number } } };
}

async function loadFastXmlParser(): Promise<Fxp | undefined> {
  const from = process.env.BENCH_FAST_XML_PARSER ? join(process.env.BENCH_FAST_XML_PARSER, 'package.json') : import.meta.url;
  try {
    const entry = createRequire(from).resolve('fast-xml-parser');
    const module = (await import(pathToFileURL(entry).href)) as Omit<Fxp, 'version'>;
    // Its package.json is not among its exports: read it beside the entry (lib/fxp.cjs).
    const { version } = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string };
    return { XMLParser: module.XMLParser, XMLValidator: module.XMLValidator, version };
  } catch {
    return undefined;
  }
}

/** The gate's job done with fast-xml-parser: the same rejections (as far as it can tell) and the same tree. */
function fastGate(fxp: Fxp) {
  const parser = new fxp.XMLParser({
    preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '', processEntities: false, parseTagValue: false,
    parseAttributeValue: false, trimValues: false, ignoreDeclaration: true, ignorePiTags: true, captureMetaData: true, maxNestedTags: MAX_DEPTH,
  });
  const META = fxp.XMLParser.getMetaDataSymbol();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  return (bytes: Uint8Array): GatePass | GateRejection => {
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      return reject('XML_ENCODING_INVALID', 'The bytes are not valid UTF-8.');
    }
    const doctype = /<!DOCTYPE[\s\S]*?(\]\s*>|>)/i.exec(text);
    if (doctype) return classifyDoctype(doctype[0], 1);
    const valid = fxp.XMLValidator.validate(text);
    if (valid !== true) return reject('XML_MALFORMED', valid.err.msg, valid.err.line);
    let nodes: unknown[];
    try {
      nodes = parser.parse(text) as unknown[];
    } catch (error) {
      return reject(/nest/i.test((error as Error).message) ? 'XML_TOO_DEEP' : 'XML_MALFORMED', (error as Error).message);
    }
    const newlines: number[] = [];
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) newlines.push(i);
    const lineAt = (index: number) => {
      let low = 0;
      let high = newlines.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if ((newlines[middle] ?? 0) < index) low = middle + 1;
        else high = middle;
      }
      return low + 1;
    };
    try {
      const root = toElements(nodes, { xml: 'http://www.w3.org/XML/1998/namespace' }, META, lineAt)[0];
      return root ? { ok: true, text, root } : reject('XML_MALFORMED', 'no root element');
    } catch (error) {
      return reject('XML_MALFORMED', (error as Error).message);
    }
  };
}

/** fast-xml-parser's ordered nodes as the gate's elements; it knows no namespaces, so they are resolved here. */
function toElements(nodes: unknown[], scope: Record<string, string>, meta: symbol, lineAt: (index: number) => number): XmlElement[] {
  const elements: XmlElement[] = [];
  for (const node of nodes as Record<string | symbol, unknown>[]) {
    const qname = Object.keys(node).find((key) => key !== ':@');
    if (qname === undefined || qname === '#text' || qname === '?xml') continue;
    const given = (node[':@'] ?? {}) as Record<string, string>;
    let inner = scope;
    const attrs: Record<string, string> = {};
    for (const [name, value] of Object.entries(given)) {
      if (name === 'xmlns') inner = { ...inner, '': value };
      else if (name.startsWith('xmlns:')) inner = { ...inner, [name.slice(6)]: value };
      else if (!name.includes(':')) attrs[name] = value;
    }
    const colon = qname.indexOf(':');
    const prefix = colon < 0 ? '' : qname.slice(0, colon);
    const ns = inner[prefix];
    if (ns === undefined && prefix !== '') throw new Error(`unbound prefix ${prefix}`);
    const children = node[qname] as unknown[];
    const element: XmlElement = {
      name: qname.slice(colon + 1), ns: ns ?? '', attrs, children: toElements(children, inner, meta, lineAt), text: '',
      line: lineAt((node[meta] as { startIndex: number } | undefined)?.startIndex ?? 0),
    };
    // As the gate: an element's text is what comes before its first child element.
    for (const child of children as Record<string, unknown>[]) {
      if (!('#text' in child)) break;
      element.text += String(child['#text']);
    }
    elements.push(element);
  }
  return elements;
}

const HOSTILE: Record<string, string> = {
  'external entity': '<!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>',
  'billion laughs': '<!DOCTYPE a [<!ENTITY l "lol"><!ENTITY l2 "&l;&l;&l;">]><a>&l2;</a>',
  'DTD alone': '<!DOCTYPE a><a/>',
  'nesting 40 deep': `${'<a>'.repeat(40)}${'</a>'.repeat(40)}`,
  'undeclared entity': '<a>&nbsp;</a>',
  'mismatched tags': '<a><b></a></b>',
  'two roots': '<a/><b/>',
  'text after the root': '<a/>text',
  'unbound prefix': '<x:a/>',
  'duplicate attribute': '<a b="1" b="2"/>',
  '< in an attribute': '<a b="<"/>',
  'control character': '<a>\u0001</a>',
  'unquoted attribute': '<a b=1/>',
  'no root': '<?xml version="1.0"?>',
};

function perDocument(read: (bytes: Uint8Array) => unknown, documents: readonly Buffer[]): { cpuUs: number; wallUs: number } {
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  for (const bytes of documents) read(bytes);
  const wall = Number(process.hrtime.bigint() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { cpuUs: (used.user + used.system) / documents.length, wallUs: wall / documents.length };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const fxp = await loadFastXmlParser();
if (!fxp) {
  log('fast-xml-parser is not installed: npm install --no-save fast-xml-parser (or BENCH_FAST_XML_PARSER=<its folder>)');
  process.exit(1);
}
const fast = fastGate(fxp);
const saxes = (bytes: Uint8Array) => inspectXml(bytes, { maxDepth: MAX_DEPTH });
const documents = buildDocuments({ prefix: 'x', count: DOCUMENTS, serialOffset: 0, agreements: benchAgreements(50), itemsPerDocument: 7, now: new Date() }).map((d) => d.bytes);
const size = documents.reduce((sum, d) => sum + d.length, 0) / documents.length;

// Both must give the same tree, or the comparison is not of the same job.
let differ = 0;
for (const bytes of documents) {
  const [a, b] = [JSON.stringify(saxes(bytes)), JSON.stringify(fast(bytes))];
  if (a !== b && differ++ === 0) log(`first difference:\n${a}\n${b}`);
}
const runs: Record<'saxes' | 'fast', { cpuUs: number; wallUs: number }[]> = { saxes: [], fast: [] };
perDocument(saxes, documents);
perDocument(fast, documents);
for (let round = 0; round < ROUNDS; round++) {
  runs.saxes.push(perDocument(saxes, documents));
  runs.fast.push(perDocument(fast, documents));
}
log(`XML readers: ${DOCUMENTS} SalaryAdjustment documents of ${Math.round(size)} bytes, ${ROUNDS} interleaved rounds; fast-xml-parser ${fxp.version}, Node ${process.version}`);
log(`trees that differ from the gate's: ${differ}`);
log('| reader | CPU µs a document (median, min–max) | wall µs a document (median) |');
log('|---|---|---|');
for (const [name, list] of Object.entries(runs)) {
  const cpu = list.map((r) => r.cpuUs);
  log(`| ${name === 'saxes' ? 'saxes gate' : 'fast-xml-parser'} | ${median(cpu).toFixed(1)} (${Math.min(...cpu).toFixed(1)}–${Math.max(...cpu).toFixed(1)}) | ${median(list.map((r) => r.wallUs)).toFixed(1)} |`);
}
log('\n| hostile or broken input | saxes gate | fast-xml-parser |');
log('|---|---|---|');
let weaker = 0;
for (const [name, text] of Object.entries(HOSTILE)) {
  const [a, b] = [saxes(Buffer.from(text)), fast(Buffer.from(text))];
  if (!a.ok && b.ok) weaker += 1;
  log(`| ${name} | ${a.ok ? 'accepted' : a.code} | ${b.ok ? 'accepted' : b.code} |`);
}
log(`\nfast-xml-parser accepts ${weaker} input(s) the gate refuses`);
process.exit(differ > 0 ? 1 : 0);
