import { escapeHtml, trusted, type Html } from './html.ts';

/**
 * The raw document as the message view shows it: indented one element a line, then
 * escaped as a whole, and only then marked up — element names, attribute names and
 * values, comments and processing instructions get a class the stylesheet colours.
 * The markup is added to text that is already escaped, so nothing in a document can
 * become markup. A document that is not well-formed is still shown: the indenting
 * only follows the tags it finds. The download stays byte for byte as received.
 */
const TOKEN = /(<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?[\s\S]*?\?>|<![^>]*>|<\/?[^<>]+>)/;
const INDENT = '  ';

/** The document with one element a line, indented by depth; an element holding only text stays on one line. */
export function prettyPrintXml(text: string): string {
  const tokens = text.split(TOKEN).filter((token) => token.trim() !== '');
  const lines: string[] = [];
  let depth = 0;
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index]!;
    const next = tokens[index + 1];
    const after = tokens[index + 2];
    if (isOpenTag(token) && next !== undefined && !next.startsWith('<') && after !== undefined && after.startsWith('</')) {
      lines.push(INDENT.repeat(depth) + token + next.trim() + after);
      index += 2;
    } else if (token.startsWith('</')) {
      depth = Math.max(0, depth - 1);
      lines.push(INDENT.repeat(depth) + token);
    } else {
      lines.push(INDENT.repeat(depth) + (token.startsWith('<') ? token : token.trim()));
      if (isOpenTag(token)) depth += 1;
    }
  }
  return lines.join('\n');
}

/** Escaped, then highlighted in one pass (a tag inside a comment stays comment): the HTML to put inside a <pre>. */
export function highlightXml(text: string): Html {
  return trusted(escapeHtml(text).replace(MARKUP, (match, comment?: string, instruction?: string, slash?: string, name?: string, attributes?: string, selfClosing?: string) => {
    if (comment !== undefined) return `<span class="xml-comment">${comment}</span>`;
    if (instruction !== undefined) return `<span class="xml-pi">${instruction}</span>`;
    if (name === undefined) return match;
    const marked = attributes!.replace(ATTRIBUTE, '<span class="xml-attribute">$1</span>$2<span class="xml-value">$3</span>');
    return `<span class="xml-tag">&lt;${slash}${name}</span>${marked}<span class="xml-tag">${selfClosing}&gt;</span>`;
  }));
}

/** In escaped text: a comment, a processing instruction, or a tag with its attributes. */
const MARKUP = /(&lt;!--[\s\S]*?--&gt;)|(&lt;\?[\s\S]*?\?&gt;)|&lt;(\/?)([\w.:-]+)((?:\s+[\w.:-]+\s*=\s*(?:&quot;.*?&quot;|&#39;.*?&#39;))*)\s*(\/?)&gt;/g;
const ATTRIBUTE = /([\w.:-]+)(\s*=\s*)(&quot;.*?&quot;|&#39;.*?&#39;)/g;

function isOpenTag(token: string): boolean {
  return token.startsWith('<') && !token.startsWith('</') && !token.startsWith('<?') && !token.startsWith('<!') && !token.endsWith('/>');
}
