/**
 * HTML for the console's server-rendered pages: a template tag that escapes every
 * value it is given, so text from documents, file names and filters can never become
 * markup. A fragment built with `html` (or marked `trusted`) is inserted as it is;
 * arrays are joined. Nothing else is inserted unescaped.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

export function html(strings: TemplateStringsArray, ...values: readonly Value[]): Html {
  let out = strings[0]!;
  for (const [index, value] of values.entries()) out += render(value) + strings[index + 1]!;
  return new Html(out);
}

/** Markup the caller built itself from constants (never from input). */
export function trusted(markup: string): Html {
  return new Html(markup);
}

function render(value: Value): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
