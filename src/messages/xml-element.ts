/**
 * A parsed element: local name, namespace, attributes, children and its own text.
 * Built by the XML gate in the same streaming pass that checks the document, so
 * handlers read typed fields without walking libxml's tree from JavaScript.
 */
export interface XmlElement {
  readonly name: string;
  readonly ns: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  text: string;
  readonly line: number;
}

/** The first child with this local name, or undefined. */
export function childOf(element: XmlElement, name: string): XmlElement | undefined {
  return element.children.find((child) => child.name === name);
}

/** Every child with this local name, in document order. */
export function childrenOf(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((child) => child.name === name);
}

/** Text of a required child; the schema has already guaranteed it exists. */
export function textOf(element: XmlElement, name: string): string {
  const child = childOf(element, name);
  if (!child) throw new Error(`<${element.name}> has no <${name}> (the schema should have required it)`);
  return child.text.trim();
}

/** Text of an optional child, or undefined. */
export function optionalTextOf(element: XmlElement, name: string): string | undefined {
  const text = childOf(element, name)?.text.trim();
  return text === undefined || text === '' ? undefined : text;
}
