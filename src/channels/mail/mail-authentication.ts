/**
 * Whether a mail really comes from the domain of its From address, as the insurer's
 * receiving mail server found when it took the mail in: its Authentication-Results
 * header (RFC 8601) with DMARC, DKIM and SPF verdicts. The From header alone is
 * whatever the sender typed, so a counterparty's documents are taken only when one
 * of these passed for the From address's domain:
 *   - dmarc=pass (header.from is that domain),
 *   - dkim=pass with a signing domain (header.d, or the domain of header.i) aligned
 *     with it,
 *   - spf=pass with an envelope sender (smtp.mailfrom) whose domain is aligned with it.
 * Aligned means equal, or one a subdomain of the other (DMARC's relaxed alignment).
 *
 * Only the results of the server named `authservId` count: anyone can write an
 * Authentication-Results header into a mail, and RFC 8601 (section 5) has the
 * receiving server remove those that claim its own name before it adds its own.
 */

export type MailAuthentication = { readonly ok: true; readonly by: string } | { readonly ok: false; readonly detail: string };

/** One method's verdict in an Authentication-Results header, e.g. dkim=pass header.d=example.se. */
interface MethodResult {
  readonly method: string;
  readonly result: string;
  readonly properties: ReadonlyMap<string, string>;
}

/** Checks the mail's Authentication-Results header values (without the field name) for the From address. */
export function authenticateMail(headerValues: readonly string[], from: string | undefined, authservId: string): MailAuthentication {
  const domain = from?.split('@')[1]?.trim().toLowerCase();
  if (!domain) return { ok: false, detail: 'the mail has no From address to authenticate' };
  const ours = headerValues.map(parseAuthenticationResults).filter((header) => header !== undefined && header.authservId === authservId.toLowerCase());
  if (ours.length === 0) {
    return { ok: false, detail: `no Authentication-Results from ${authservId}: the mail did not come through the insurer's receiving server, or it checks no DMARC, DKIM or SPF` };
  }
  const results = ours.flatMap((header) => header!.results);
  for (const result of results) {
    if (result.result !== 'pass') continue;
    if (result.method === 'dmarc' && aligned(result.properties.get('header.from'), domain)) return { ok: true, by: `dmarc=pass for ${domain}` };
    if (result.method === 'dkim') {
      const signer = result.properties.get('header.d') ?? domainOf(result.properties.get('header.i'));
      if (aligned(signer, domain)) return { ok: true, by: `dkim=pass by ${signer}` };
    }
    if (result.method === 'spf' && aligned(domainOf(result.properties.get('smtp.mailfrom')), domain)) {
      return { ok: true, by: `spf=pass for ${result.properties.get('smtp.mailfrom')}` };
    }
  }
  const found = results.map((result) => `${result.method}=${result.result}${describeSubject(result)}`).join(', ') || 'no verdicts';
  return { ok: false, detail: `no DMARC, DKIM or SPF pass for ${domain} from ${authservId} (found: ${found})` };
}

/** The authserv-id and method verdicts of one header value; undefined when it has no authserv-id. */
function parseAuthenticationResults(value: string): { authservId: string; results: MethodResult[] } | undefined {
  const [head, ...resinfos] = withoutComments(value).split(';').map((part) => part.trim());
  const authservId = head?.split(/\s+/)[0]?.toLowerCase();
  if (!authservId) return undefined;
  const results: MethodResult[] = [];
  for (const resinfo of resinfos) {
    const tokens = tokenise(resinfo);
    const verdict = /^([a-z0-9-]+)(?:\/[0-9]+)?=([a-z]+)$/i.exec(tokens[0] ?? '');
    if (!verdict) continue; // "none", or something this reader does not know
    const properties = new Map<string, string>();
    for (const token of tokens.slice(1)) {
      const property = /^([a-z0-9-]+\.[a-z0-9_.-]+)=(.*)$/i.exec(token);
      if (property) properties.set(property[1]!.toLowerCase(), unquote(property[2]!));
    }
    results.push({ method: verdict[1]!.toLowerCase(), result: verdict[2]!.toLowerCase(), properties });
  }
  return { authservId, results };
}

/** RFC 5322 comments (in parentheses, possibly nested) removed; quoted strings kept. */
function withoutComments(value: string): string {
  let out = '';
  let depth = 0;
  let quoted = false;
  for (let index = 0; index < value.length; index += 1) {
    const char = value[index]!;
    if (char === '\\' && index + 1 < value.length) {
      if (depth === 0) out += char + value[index + 1];
      index += 1;
    } else if (quoted) {
      out += char;
      if (char === '"') quoted = false;
    } else if (char === '(') {
      depth += 1;
    } else if (char === ')' && depth > 0) {
      depth -= 1;
    } else if (depth === 0) {
      out += char;
      if (char === '"') quoted = true;
    }
  }
  return out;
}

/** Whitespace-separated tokens, a quoted string kept whole. */
function tokenise(text: string): string[] {
  return text.match(/(?:[^\s"]+|"(?:[^"\\]|\\.)*")+/g) ?? [];
}

function unquote(value: string): string {
  return value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value;
}

function domainOf(address: string | undefined): string | undefined {
  if (!address) return undefined;
  const at = address.lastIndexOf('@');
  return at >= 0 ? address.slice(at + 1) : address;
}

/** Equal, or one a subdomain of the other (never a bare top-level domain). */
function aligned(candidate: string | undefined, domain: string): boolean {
  const other = candidate?.trim().toLowerCase().replace(/\.$/, '');
  if (!other?.includes('.')) return false;
  return other === domain || domain.endsWith(`.${other}`) || other.endsWith(`.${domain}`);
}

function describeSubject(result: MethodResult): string {
  const subject = result.properties.get('header.from') ?? result.properties.get('header.d') ?? result.properties.get('smtp.mailfrom');
  return subject ? ` (${subject})` : '';
}
