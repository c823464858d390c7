import { visibleTextAsHtml } from '../../bankid/simple-markdown.ts';
import { isFullySigned } from '../../core/company-signatories.rules.ts';
import { maskPersonalIdentityNumbers } from '../../core/identifiers.ts';
import type { SignCaseRecord, SignCaseSignatory } from '../../ledger/advice/sign-cases.repository.ts';
import { html, trusted, type Html } from '../console/html.ts';
import { qrViewBox, type QrOutline } from './qr-svg.ts';
import { TEXTS, type Language } from './signing-page.texts.ts';

/**
 * The signing page as HTML, from what the routes found: the text the signatory signs
 * (simpleMarkdownV1 with its headings and bold, everything escaped), who signs and who
 * has, and where this signatory's signing stands — buttons to start BankID on this
 * device or another, the pending order (the autostart link, or the QR code as an inline
 * SVG with the status and a Check status button), or the outcome. Plain forms and
 * links: without JavaScript everything works but the QR code's refresh each second (the
 * page reloads itself every 2 seconds instead).
 */
export type Device = 'this' | 'other';

export interface SigningPageModel {
  readonly lang: Language;
  readonly token: string;
  readonly signCase: SignCaseRecord;
  readonly signatory: SignCaseSignatory;
  readonly device: Device;
  /** The signatory's BankID order waiting for them. */
  readonly pending?: { readonly autoStartToken: string; readonly qr: QrOutline; readonly status: string; readonly launch: boolean };
  /** What the last signing ended with, or why none could be started. */
  readonly outcome?: { readonly kind: 'done' | 'error'; readonly text: string };
  /** Why the signatory may not (or need not) sign; undefined while they may. */
  readonly noSigning?: string;
}

export function pageUrl(signCaseId: string, token: string, lang: Language, extra: Readonly<Record<string, string>> = {}): string {
  const query = new URLSearchParams({ t: token, lang, ...extra });
  return `/sign/${encodeURIComponent(signCaseId)}?${query.toString()}`;
}

export function renderSigningPage(model: SigningPageModel): string {
  const { lang, signCase, token } = model;
  const texts = TEXTS[lang];
  const other: Language = lang === 'sv' ? 'en' : 'sv';
  const id = signCase.signCaseId;
  const refresh = model.pending ? pageUrl(id, token, lang, { device: model.device }) : undefined;
  return html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${texts.title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/sign/page.css">
${refresh ? html`<noscript><meta http-equiv="refresh" content="2; url=${refresh}"></noscript>
<script src="/sign/page.js" defer></script>` : ''}
</head>
<body>
<header><a href="${pageUrl(id, token, other, model.pending ? { device: model.device } : {})}" hreflang="${other}" lang="${other}" id="language">${texts.otherLanguage}</a></header>
<main>
<h1>${texts.title}</h1>
<p>${texts.intro}</p>
<section aria-labelledby="what-heading">
<h2 id="what-heading">${texts.whatYouSign}</h2>
<div id="visible-text" class="visible-text">${trusted(visibleTextAsHtml(signCase.visibleText, 'simpleMarkdownV1'))}</div>
</section>
<section aria-labelledby="who-heading">
<h2 id="who-heading">${texts.whoSigns}</h2>
${signatoryList(model)}
<p id="case-status">${caseStatusText(model)}</p>
</section>
<section aria-labelledby="sign-heading">
<h2 id="sign-heading">${texts.howToSign}</h2>
${model.outcome ? html`<div id="outcome" class="notice ${model.outcome.kind}" role="${model.outcome.kind === 'error' ? 'alert' : 'status'}"><p>${model.outcome.text}</p></div>` : ''}
${model.noSigning ? html`<p id="no-signing" class="notice done" role="status">${model.noSigning}</p>` : model.pending ? pendingPanel(model) : startForms(model)}
</section>
</main>
</body>
</html>
`.text;
}

function signatoryList(model: SigningPageModel): Html {
  const texts = TEXTS[model.lang];
  return html`<ul id="signatories">${model.signCase.signatories.map((s) => {
    const own = s.role === model.signatory.role && s.personalNumber === model.signatory.personalNumber;
    return html`<li data-role="${s.role}" data-signed="${s.signedAt ? 'yes' : 'no'}"${own ? trusted(' data-own="yes"') : ''}>
<strong>${texts.roles[s.role]}${own ? ` (${texts.you})` : ''}</strong> ${maskPersonalIdentityNumbers(`${s.personalNumber.slice(0, 8)}-${s.personalNumber.slice(8)}`)}:
<span class="${s.signedAt ? 'signed' : 'unsigned'}">${signatoryStatusText(model, s)}</span></li>`;
  })}</ul>`;
}

/** Whether (and when) a signatory has signed. */
export function signatoryStatusText(model: Pick<SigningPageModel, 'lang'>, signatory: SignCaseSignatory): string {
  const texts = TEXTS[model.lang];
  return signatory.signedAt ? texts.signedAt(stockholmTime(signatory.signedAt, model.lang)) : texts.notSigned;
}

/** How many have signed of how many must, and whether the reader's own signature is among those missing; or that everyone has. */
export function caseStatusText(model: Pick<SigningPageModel, 'lang' | 'signCase' | 'signatory'>): string {
  const texts = TEXTS[model.lang];
  const { signatories, companySignaturesRequired } = model.signCase;
  if (isFullySigned(signatories, companySignaturesRequired)) return texts.complete;
  const personal = signatories.filter((s) => s.role !== 'company-signatory');
  const company = signatories.filter((s) => s.role === 'company-signatory');
  const companyNeeded = Math.min(companySignaturesRequired ?? 0, company.length);
  const companySigned = Math.min(company.filter((s) => s.signedAt).length, companyNeeded);
  const needed = personal.length + companyNeeded;
  const signed = personal.filter((s) => s.signedAt).length + companySigned;
  const own = signatories.find((s) => s.role === model.signatory.role && s.personalNumber === model.signatory.personalNumber);
  const ownMissing = own !== undefined && !own.signedAt && (own.role !== 'company-signatory' || companySigned < companyNeeded);
  return texts.waitingFor(signed, needed, ownMissing);
}

function hidden(model: SigningPageModel, device: Device): Html {
  return html`<input type="hidden" name="t" value="${model.token}"><input type="hidden" name="lang" value="${model.lang}"><input type="hidden" name="device" value="${device}">`;
}

function startForms(model: SigningPageModel): Html {
  const texts = TEXTS[model.lang];
  const action = `/sign/${encodeURIComponent(model.signCase.signCaseId)}/start`;
  return html`<div class="start">
<form method="post" action="${action}" id="start-this">${hidden(model, 'this')}<button type="submit" class="primary">${texts.startThisDevice}</button></form>
<form method="post" action="${action}" id="start-other">${hidden(model, 'other')}<button type="submit" class="secondary">${texts.startOtherDevice}</button></form>
</div>`;
}

function pendingPanel(model: SigningPageModel): Html {
  const texts = TEXTS[model.lang];
  const pending = model.pending!;
  const autostart = `bankid:///?autostarttoken=${encodeURIComponent(pending.autoStartToken)}&redirect=null`;
  const code = model.device === 'this'
    ? html`<p><a id="open-app" class="button primary" href="${autostart}">${texts.openApp}</a></p><p>${texts.openAppHelp}</p>`
    : html`<p id="scan-help">${texts.scanHelp}</p>
<svg id="qr-code" role="img" aria-label="${texts.qrLabel}" viewBox="${qrViewBox(pending.qr.size)}" width="240" height="240" shape-rendering="crispEdges"><path id="qr-path" d="${pending.qr.path}"/></svg>`;
  return html`<div id="bankid-order" data-device="${model.device}" data-launch="${pending.launch ? 'yes' : 'no'}">
${code}
<p><strong>${texts.status}:</strong> <span id="signing-status" role="status" aria-live="polite">${pending.status}</span></p>
<form method="post" action="/sign/${encodeURIComponent(model.signCase.signCaseId)}/collect" id="check-status">${hidden(model, model.device)}<button type="submit" class="secondary">${texts.checkStatus}</button></form>
<p class="help" id="status-help">${texts.checkStatusHelp}</p>
</div>`;
}

function stockholmTime(at: string, lang: Language): string {
  return new Date(at).toLocaleString(lang === 'sv' ? 'sv-SE' : 'en-GB', { timeZone: 'Europe/Stockholm', dateStyle: 'long', timeStyle: 'short' });
}
