import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectXml } from './xml-gate.ts';
import { childOf, childrenOf, type XmlElement } from './xml-element.ts';

/**
 * The catalogue's XML schemas read as data: the top-level elements, named types,
 * their particles, facets and documentation. It serves what must never drift from
 * the XSDs — the generated message reference (docs/messages.md) and the generator of
 * random schema-valid documents in the tests. It understands the subset of XSD the
 * catalogue uses (sequence, choice, simple restrictions, simple content with
 * attributes, includes) and throws on anything else, so a schema that strays from
 * the conventions is noticed.
 */
export interface Facets {
  readonly patterns: readonly string[];
  readonly enumeration: readonly string[];
  readonly minInclusive?: string;
  readonly maxInclusive?: string;
  readonly minExclusive?: string;
  readonly maxExclusive?: string;
  readonly totalDigits?: number;
  readonly fractionDigits?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
}

export interface SimpleTypeDef {
  readonly kind: 'simple';
  readonly name?: string;
  /** The base: another named simple type of the catalogue, or an xs: built-in such as `xs:decimal`. */
  readonly base: string;
  readonly facets: Facets;
  readonly documentation?: string;
}

export interface AttributeDecl {
  readonly name: string;
  readonly type: string;
  readonly required: boolean;
  readonly defaultValue?: string;
  readonly documentation?: string;
}

export interface ElementDecl {
  readonly name: string;
  /** A named type (catalogue or xs: built-in), or the inline type. */
  readonly type: string | TypeDef;
  readonly minOccurs: number;
  /** Infinity for unbounded. */
  readonly maxOccurs: number;
  readonly documentation?: string;
}

export interface ModelGroup {
  readonly kind: 'sequence' | 'choice';
  readonly minOccurs: number;
  readonly maxOccurs: number;
  readonly particles: readonly Particle[];
}

export type Particle = ({ readonly kind: 'element' } & ElementDecl) | ModelGroup;

export interface ComplexTypeDef {
  readonly kind: 'complex';
  readonly name?: string;
  /** Element content (absent for simple content). */
  readonly content?: ModelGroup;
  /** Simple content: the text's type. */
  readonly simpleContent?: string;
  readonly attributes: readonly AttributeDecl[];
  readonly documentation?: string;
}

export type TypeDef = SimpleTypeDef | ComplexTypeDef;

export interface SchemaModel {
  /** Top-level elements by name (one per document type). */
  readonly elements: ReadonlyMap<string, ElementDecl & { readonly file: string; readonly fileComment?: string }>;
  readonly types: ReadonlyMap<string, TypeDef>;
}

const UNBOUNDED = Number.POSITIVE_INFINITY;

export function loadSchemaModel(folder: string): SchemaModel {
  const elements = new Map<string, ElementDecl & { file: string; fileComment?: string }>();
  const types = new Map<string, TypeDef>();
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.xsd')).sort()) {
    const text = readFileSync(join(folder, file), 'utf8');
    const gate = inspectXml(Buffer.from(text), { maxDepth: 64 });
    if (!gate.ok) throw new Error(`${file}: ${gate.text}`);
    const fileComment = /^<\?xml[^>]*>\s*<!--\s*([\s\S]*?)\s*-->/.exec(text)?.[1]?.replace(/\s+/g, ' ');
    for (const child of gate.root.children) {
      switch (child.name) {
        case 'element':
          elements.set(required(child, 'name'), { ...readElement(child), file, ...(fileComment ? { fileComment } : {}) });
          break;
        case 'simpleType':
          types.set(required(child, 'name'), readSimpleType(child));
          break;
        case 'complexType':
          types.set(required(child, 'name'), readComplexType(child));
          break;
        case 'include':
        case 'annotation':
          break;
        default:
          throw new Error(`${file}: <xs:${child.name}> at line ${child.line} is not part of the catalogue's XSD subset`);
      }
    }
  }
  return { elements, types };
}

function required(node: XmlElement, attribute: string): string {
  const value = node.attrs[attribute];
  if (value === undefined) throw new Error(`<xs:${node.name}> at line ${node.line} has no ${attribute}`);
  return value;
}

function documentationOf(node: XmlElement): string | undefined {
  const text = childOf(node, 'annotation')
    ?.children.filter((child) => child.name === 'documentation')
    .map((child) => child.text.trim().replace(/\s+/g, ' '))
    .join(' ');
  return text ? text : undefined;
}

function occurs(node: XmlElement): { minOccurs: number; maxOccurs: number } {
  const max = node.attrs.maxOccurs;
  return { minOccurs: Number(node.attrs.minOccurs ?? '1'), maxOccurs: max === 'unbounded' ? UNBOUNDED : Number(max ?? '1') };
}

function withDocumentation<T extends object>(value: T, node: XmlElement): T & { documentation?: string } {
  const documentation = documentationOf(node);
  return documentation === undefined ? value : { ...value, documentation };
}

function readElement(node: XmlElement): ElementDecl {
  const inline = node.children.find((child) => child.name === 'simpleType' || child.name === 'complexType');
  const type = node.attrs.type ?? (inline ? (inline.name === 'simpleType' ? readSimpleType(inline) : readComplexType(inline)) : 'xs:string');
  return withDocumentation({ name: required(node, 'name'), type, ...occurs(node) }, node);
}

function readSimpleType(node: XmlElement): SimpleTypeDef {
  const restriction = childOf(node, 'restriction');
  if (!restriction) throw new Error(`simple type at line ${node.line}: only xs:restriction is supported`);
  const value = (facet: string) => childOf(restriction, facet)?.attrs.value;
  const number = (facet: string) => (value(facet) === undefined ? undefined : Number(value(facet)));
  const facets: Facets = {
    patterns: childrenOf(restriction, 'pattern').map((pattern) => required(pattern, 'value')),
    enumeration: childrenOf(restriction, 'enumeration').map((option) => required(option, 'value')),
    ...optional('minInclusive', value('minInclusive')),
    ...optional('maxInclusive', value('maxInclusive')),
    ...optional('minExclusive', value('minExclusive')),
    ...optional('maxExclusive', value('maxExclusive')),
    ...optional('totalDigits', number('totalDigits')),
    ...optional('fractionDigits', number('fractionDigits')),
    ...optional('minLength', number('minLength')),
    ...optional('maxLength', number('maxLength')),
  };
  const name = node.attrs.name;
  return withDocumentation({ kind: 'simple' as const, ...(name ? { name } : {}), base: required(restriction, 'base'), facets }, node);
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function readComplexType(node: XmlElement): ComplexTypeDef {
  const name = node.attrs.name;
  const base = { kind: 'complex' as const, ...(name ? { name } : {}) };
  const simpleContent = childOf(node, 'simpleContent');
  if (simpleContent) {
    const extension = childOf(simpleContent, 'extension');
    if (!extension) throw new Error(`complex type at line ${node.line}: simple content needs xs:extension`);
    return withDocumentation({ ...base, simpleContent: required(extension, 'base'), attributes: childrenOf(extension, 'attribute').map(readAttribute) }, node);
  }
  const group = node.children.find((child) => child.name === 'sequence' || child.name === 'choice');
  return withDocumentation({ ...base, ...(group ? { content: readGroup(group) } : {}), attributes: childrenOf(node, 'attribute').map(readAttribute) }, node);
}

function readGroup(node: XmlElement): ModelGroup {
  const particles: Particle[] = [];
  for (const child of node.children) {
    if (child.name === 'element') particles.push({ kind: 'element', ...readElement(child) });
    else if (child.name === 'sequence' || child.name === 'choice') particles.push(readGroup(child));
    else if (child.name !== 'annotation') throw new Error(`<xs:${child.name}> at line ${child.line} is not part of the catalogue's XSD subset`);
  }
  return { kind: node.name as 'sequence' | 'choice', ...occurs(node), particles };
}

function readAttribute(node: XmlElement): AttributeDecl {
  const defaultValue = node.attrs.default;
  return withDocumentation(
    { name: required(node, 'name'), type: node.attrs.type ?? 'xs:string', required: node.attrs.use === 'required', ...(defaultValue === undefined ? {} : { defaultValue }) },
    node,
  );
}

/** Resolves a type reference: a catalogue type, or undefined for an xs: built-in. */
export function resolveType(model: SchemaModel, type: string | TypeDef): TypeDef | undefined {
  if (typeof type !== 'string') return type;
  if (type.startsWith('xs:')) return undefined;
  const found = model.types.get(type);
  if (!found) throw new Error(`type ${type} is not declared in the catalogue`);
  return found;
}
