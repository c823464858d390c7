import { resolveType, type ElementDecl, type Facets, type ModelGroup, type Particle, type SchemaModel, type TypeDef } from './schema-model.ts';

/**
 * Renders the message reference (docs/messages.md) from the schemas themselves, so
 * the page an HR-system vendor integrates against can never drift from what the
 * gateway validates. Every request type gets its fields as a table (path, type,
 * occurrence, the schema's own documentation); named types shared by several
 * documents (the header, a fund allocation, the response body) are described once
 * and linked. `npm run docs:messages` rewrites the page; a test fails when it is stale.
 */
export interface ReferenceEntry {
  readonly request: string;
  readonly response: string;
  readonly family: string;
}

/** A document the gateway writes that answers no request of the catalogue: to whom it goes, and how. */
export interface OutgoingEntry {
  readonly document: string;
  readonly sentTo: string;
}

export function renderMessageReference(model: SchemaModel, entries: readonly ReferenceEntry[], outgoing: readonly OutgoingEntry[] = []): string {
  const out: string[] = [
    '# Message reference',
    '',
    '<!-- Generated from schemas/*.xsd by `npm run docs:messages`; do not edit by hand. -->',
    '',
    'Every document of the depot-gateway catalogue, generated from the XML schemas in',
    '`schemas/` (namespace `urn:se:depot-gateway:v1`). Each request is answered with its',
    'response document, which has the same shape for every type (see [Responses](#responses)):',
    'one result per item, in the request\'s order, so a sender corrects and resends only the',
    'items that were rejected. Result codes are listed in [errors.md](errors.md).',
    '',
    '| Request | Response | Family | What it does |',
    '|---|---|---|---|',
  ];
  for (const entry of entries) {
    const element = model.elements.get(entry.request);
    out.push(`| [${entry.request}](#${anchor(entry.request)}) | ${entry.response} | ${entry.family} | ${cell(element?.documentation ?? '')} |`);
  }
  for (const entry of entries) {
    const element = model.elements.get(entry.request);
    if (!element) throw new Error(`the catalogue names ${entry.request}, but no schema declares it`);
    out.push('', `## ${entry.request}`, '', element.documentation ?? '', '');
    if (element.fileComment) out.push(`${element.fileComment}`, '');
    out.push(`Schema: \`schemas/${element.file}\`. Answered with \`${entry.response}\`.`, '');
    out.push(...fieldTable(model, element));
  }
  if (outgoing.length > 0) {
    out.push('', '## Documents the gateway writes', '', 'Documents the gateway sends, or answers with, that are not the response to a request above.', '');
    out.push('| Document | Sent to | What it is |', '|---|---|---|');
    for (const entry of outgoing) out.push(`| [${entry.document}](#${anchor(entry.document)}) | ${cell(entry.sentTo)} | ${cell(model.elements.get(entry.document)?.documentation ?? '')} |`);
  }
  for (const entry of outgoing) {
    const element = model.elements.get(entry.document);
    if (!element) throw new Error(`the reference names ${entry.document}, but no schema declares it`);
    out.push('', `## ${entry.document}`, '', element.documentation ?? '', '');
    if (element.fileComment) out.push(`${element.fileComment}`, '');
    out.push(`Schema: \`schemas/${element.file}\`. Sent to ${entry.sentTo}.`, '');
    out.push(...fieldTable(model, element));
  }
  out.push('', '## Responses', '');
  out.push('Every response document (`<Request>Response`, or `MessageRejected` when the type could not be read) has the body `ResponseDocument`:', '');
  out.push(...fieldTable(model, { name: 'Response', type: 'ResponseDocument', minOccurs: 1, maxOccurs: 1 }));
  out.push('', '## Shared types', '');
  for (const [name, type] of [...model.types].sort(([a], [b]) => a.localeCompare(b))) {
    out.push(`### ${name}`, '', type.documentation ?? '', '');
    if (type.kind === 'simple') out.push(`Restriction of \`${type.base}\`${describeFacets(type.facets) ? `: ${describeFacets(type.facets)}` : ''}.`, '');
    else if (type.simpleContent) out.push(`Text of type \`${type.simpleContent}\`; attributes: ${type.attributes.map((a) => `\`${a.name}\` (${a.type}${a.defaultValue ? `, default ${a.defaultValue}` : ''})`).join(', ')}.`, '');
    else out.push(...fieldTable(model, { name, type: name, minOccurs: 1, maxOccurs: 1 }));
  }
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}

function fieldTable(model: SchemaModel, root: ElementDecl): string[] {
  const rows = ['| Field | Type | Occurs | Meaning |', '|---|---|---|---|'];
  const type = resolveType(model, root.type);
  if (type?.kind === 'complex' && type.content) walkGroup(model, type.content, '', rows, false);
  return [...rows, ''];
}

function walkGroup(model: SchemaModel, group: ModelGroup, prefix: string, rows: string[], inChoice: boolean): void {
  const choice = group.kind === 'choice';
  if (choice) rows.push(`| ${prefix ? `${prefix}/` : ''}*(one of)* | | ${occursText(group.minOccurs, group.maxOccurs)} | exactly one of the following ${group.particles.length} alternatives |`);
  for (const particle of group.particles) walkParticle(model, particle, prefix, rows, choice || inChoice);
}

function walkParticle(model: SchemaModel, particle: Particle, prefix: string, rows: string[], inChoice: boolean): void {
  if (particle.kind !== 'element') {
    walkGroup(model, particle, prefix, rows, inChoice);
    return;
  }
  const path = prefix ? `${prefix}/${particle.name}` : particle.name;
  const type = resolveType(model, particle.type);
  const typeName = typeof particle.type === 'string' ? particle.type : undefined;
  // Anonymous content is expanded in place; a named complex type is described once, under Shared types.
  const expand = type?.kind === 'complex' && type.content && typeName === undefined;
  const occurs = `${occursText(particle.minOccurs, particle.maxOccurs)}${inChoice ? ' (alternative)' : ''}`;
  rows.push(`| ${path} | ${typeText(model, particle.type)} | ${occurs} | ${cell(particle.documentation ?? '')} |`);
  if (expand && type.kind === 'complex' && type.content) walkGroup(model, type.content, path, rows, false);
  if (type?.kind === 'complex') {
    for (const attribute of type.attributes) {
      rows.push(`| ${path}/@${attribute.name} | ${typeText(model, attribute.type)} | ${attribute.required ? '1' : '0..1'} | ${cell(attribute.documentation ?? '')}${attribute.defaultValue ? ` Default ${attribute.defaultValue}.` : ''} |`);
    }
  }
}

function typeText(model: SchemaModel, type: string | TypeDef): string {
  if (typeof type === 'string') {
    if (type.startsWith('xs:')) return `\`${type}\``;
    return `[${type}](#${anchor(type)})`;
  }
  if (type.kind === 'simple') return `\`${type.base}\`${describeFacets(type.facets) ? ` (${describeFacets(type.facets)})` : ''}`;
  if (type.simpleContent) return typeText(model, type.simpleContent);
  return 'fields below';
}

export function describeFacets(facets: Facets): string {
  const parts: string[] = [];
  if (facets.enumeration.length > 0) parts.push(`one of ${facets.enumeration.map((value) => `\`${value}\``).join(', ')}`);
  for (const pattern of facets.patterns) parts.push(`pattern \`${pattern.replace(/\|/g, '\\|')}\``);
  if (facets.minInclusive !== undefined) parts.push(`≥ ${facets.minInclusive}`);
  if (facets.minExclusive !== undefined) parts.push(`> ${facets.minExclusive}`);
  if (facets.maxInclusive !== undefined) parts.push(`≤ ${facets.maxInclusive}`);
  if (facets.maxExclusive !== undefined) parts.push(`< ${facets.maxExclusive}`);
  if (facets.totalDigits !== undefined) parts.push(`at most ${facets.totalDigits} digits`);
  if (facets.fractionDigits !== undefined) parts.push(`at most ${facets.fractionDigits} decimals`);
  if (facets.minLength !== undefined) parts.push(`at least ${facets.minLength} characters`);
  if (facets.maxLength !== undefined) parts.push(`at most ${facets.maxLength} characters`);
  return parts.join(', ');
}

function occursText(min: number, max: number): string {
  if (min === max) return String(min);
  return `${min}..${max === Number.POSITIVE_INFINITY ? 'n' : max}`;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function anchor(heading: string): string {
  return heading.toLowerCase().replace(/[^a-z0-9]+/g, '-');
}
