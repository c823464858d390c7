import { SaxesParser } from 'saxes';
import { CATALOGUE_NAMESPACE } from './catalogue-namespace.ts';
import type { Catalogue } from './catalogue.ts';
import { HEAD_BYTES } from './header-message-id.ts';
import { agreementOrderingKey } from './plan-administration/plan-message.ts';

/**
 * The ordering key a plan-administration document will have once validated
 * (`agreement:<AgreementNumber>`, plan-message.ts), read at intake from the document's
 * first bytes. Intake records it with the message, so the rules of order hold a
 * sender's later document back only behind its older documents of the same key or of a
 * key not known yet — not behind every older document of the sender
 * (docs/architecture.md, *Order*).
 *
 * It must be the key validation will find, or a document could be applied before an
 * older one of its key: so it is read with the parser and the rules the XML gate and
 * the typed reader use (saxes with namespaces; the first `Header` child of the root,
 * its first `AgreementNumber` child, that element's text and CDATA as the gate gathers
 * them, trimmed). Undefined — the key not known, which holds the sender's later
 * documents back as before — when the root is not a plan-administration type in the
 * catalogue's namespace, the header does not end within the first HEAD_BYTES, or the
 * parser stops on anything (a doctype, malformed XML, invalid UTF-8): all of which
 * validation rejects anyway.
 */
export function readOrderingKeyHint(bytes: Uint8Array, catalogue: Catalogue): string | undefined {
  const cut = bytes.byteLength > HEAD_BYTES;
  let text: string;
  try {
    // Strict UTF-8 as the gate decodes, the byte-order mark removed; a head cut inside a character is not an error.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(cut ? bytes.subarray(0, HEAD_BYTES) : bytes, { stream: cut });
  } catch {
    return undefined;
  }
  const parser = new SaxesParser({ xmlns: true });
  // The open elements: the root, the header (the root's first Header child), its first AgreementNumber, or any other.
  const open: { role: 'root' | 'header' | 'agreement' | 'other'; children: number; text: string }[] = [];
  let headerFound = false;
  let agreementNumber: string | undefined;
  let key: string | undefined;
  const close = () => {
    const element = open.pop()!;
    if (element.role === 'agreement') agreementNumber = element.text;
    if (element.role === 'header') {
      key = agreementNumber === undefined ? undefined : agreementOrderingKey(agreementNumber.trim());
      throw new Finished(true);
    }
  };
  parser.on('doctype', () => {
    throw new Finished(false);
  });
  parser.on('opentag', (tag) => {
    const parent = open.at(-1);
    if (parent) parent.children += 1;
    let role: (typeof open)[number]['role'] = 'other';
    if (!parent) {
      if (tag.uri !== CATALOGUE_NAMESPACE || catalogue.get(tag.local)?.family !== 'plan-administration') throw new Finished(false);
      role = 'root';
    } else if (parent.role === 'root' && tag.local === 'Header' && !headerFound) {
      headerFound = true;
      role = 'header';
    } else if (parent.role === 'header' && tag.local === 'AgreementNumber' && agreementNumber === undefined) {
      role = 'agreement';
    }
    open.push({ role, children: 0, text: '' });
    if (tag.isSelfClosing) close();
  });
  parser.on('closetag', (tag) => {
    if (!tag.isSelfClosing) close();
  });
  parser.on('text', (chunk) => {
    const current = open.at(-1);
    if (current && current.children === 0) current.text += chunk;
  });
  parser.on('cdata', (chunk) => {
    const current = open.at(-1);
    if (current) current.text += chunk;
  });
  parser.on('error', () => {
    throw new Finished(false);
  });
  try {
    parser.write(text);
  } catch (error) {
    return error instanceof Finished && error.complete ? key : undefined;
  }
  return undefined;
}

/** Ends the parse from inside a handler: `complete` when the header was read to its end. */
class Finished extends Error {
  constructor(readonly complete: boolean) {
    super('finished');
  }
}
