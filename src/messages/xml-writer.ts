/** Escapes text for an XML element or a double-quoted attribute. */
export function escapeXml(value: string): string {
  return NEEDS_ESCAPE.test(value) ? value.replace(/[<>&"]/g, (char) => ESCAPES[char] ?? char) : value;
}

const NEEDS_ESCAPE = /[<>&"]/;

const ESCAPES: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' };

/** `<name>text</name>` with the text escaped, or '' when the value is undefined. */
export function element(name: string, value: string | number | undefined, indent = ''): string {
  return value === undefined ? '' : `${indent}<${name}>${escapeXml(String(value))}</${name}>\n`;
}
