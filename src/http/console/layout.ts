import { html, type Html } from './html.ts';
import type { StaffIdentity } from './staff-sessions.ts';

/**
 * The frame of every console page: the navigation, who is signed in and the sign-out
 * form (with the session's CSRF token), and the stylesheet. Times are shown in
 * Stockholm time, the gateway's business time zone.
 */
export function page(title: string, staff: StaffIdentity | null, body: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · depot-gateway</title>
<link rel="stylesheet" href="/console/console.css">
</head>
<body>
<header>
  <strong>depot-gateway</strong>
  ${staff ? html`<nav>
    <a href="/console">Overview</a>
    <a href="/console/messages">Messages</a>
    <a href="/console/channels">Channels</a>
    <a href="/console/custodian-reports">Custodian reports</a>
    <a href="/console/runs">Runs</a>
    <a href="/console/death-benefits">Death benefits</a>
    <a href="/console/payment-orders">Payment orders</a>
    <a href="/console/transfer-leaflets">Transfer leaflets</a>
    <a href="/console/custodian-switches">Custodian switches</a>
    <a href="/console/invoice-specifications">Invoice specifications</a>
    <a href="/console/mail-set-aside">Set-aside mail</a>
    <a href="/console/payout-notices">Payout notices</a>
    <a href="/console/application-notices">Application notices</a>
    <a href="/console/applications">Applications</a>
    <a href="/console/withdrawal-requests">Withdrawals</a>
    <a href="/console/retention">Retention</a>
    <a href="/console/audit">Audit log</a>
    <a href="/admin/queues">Queues</a>
  </nav>
  <form method="post" action="/console/sign-out" class="who">
    <span>${staff.username} (${staff.role})</span>
    <input type="hidden" name="_csrf" value="${staff.csrfToken}">
    <button type="submit">Sign out</button>
  </form>` : ''}
</header>
<main>
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`.text;
}

export function formatTime(at: Date | string | null | undefined): string {
  return at ? new Date(at).toLocaleString('sv-SE', { timeZone: 'Europe/Stockholm' }) : '';
}

/** One column of a list: its heading and what a row shows in it. */
export type Column<Row> = readonly [heading: string, cell: (row: Row) => Html | string | number | null];

/** A list as a table (`id` for tests and links), a row per item; `empty` when there is none. */
export function listTable<Row>(id: string, rows: readonly Row[], columns: readonly Column<Row>[], empty: string): Html {
  if (rows.length === 0) return html`<p id="${id}-none">${empty}</p>`;
  return html`<table id="${id}"><tr>${columns.map(([heading]) => html`<th>${heading}</th>`)}</tr>
${rows.map((row) => html`<tr>${columns.map(([, cell]) => html`<td>${cell(row)}</td>`)}</tr>`)}
</table>`;
}

/** Links to the same list under other filters, the one shown marked. */
export function choices(path: string, current: string, options: readonly (readonly [label: string, query: string])[]): Html {
  return html`<p class="choices">${options.map(([label, query]) => (query === current
    ? html`<strong>${label}</strong> `
    : html`<a href="${query === '' ? path : `${path}?${query}`}">${label}</a> `))}</p>`;
}

/** A notice above a page's content: what went wrong with the request, or what was done. */
export function notice(kind: 'error' | 'done', texts: readonly string[]): Html {
  return texts.length === 0 ? html`` : html`<div class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${texts.map((text) => html`<p>${text}</p>`)}</div>`;
}

export const CONSOLE_CSS = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1b1f24; background: #f6f7f9; }
header { display: flex; gap: 1.5em; align-items: center; padding: .6em 1.2em; background: #1f3a5f; color: #fff; }
header a { color: #fff; margin-right: 1em; text-decoration: none; }
header a:hover { text-decoration: underline; }
header .who { margin-left: auto; display: flex; gap: .6em; align-items: center; }
main { padding: 1em 1.2em; overflow-wrap: anywhere; }
h1 { font-size: 1.4em; margin: .2em 0 .8em; }
h2 { font-size: 1.1em; margin: 1.4em 0 .5em; }
table { border-collapse: collapse; background: #fff; margin-bottom: 1em; }
/* A table wider than the screen (a phone) scrolls sideways by itself; the page does not. */
table { display: block; max-width: 100%; width: max-content; overflow-x: auto; }
th, td { border: 1px solid #d5d9de; padding: .3em .6em; text-align: left; vertical-align: top; overflow-wrap: normal; }
th { background: #eef1f4; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: #fff; border: 1px solid #d5d9de; padding: .8em; overflow: auto; max-height: 40em; white-space: pre-wrap; word-break: break-all; }
form.filters { display: grid; grid-template-columns: repeat(auto-fill, minmax(13em, 1fr)); gap: .5em 1em; margin-bottom: 1em; }
form.filters label { display: flex; flex-direction: column; font-size: .9em; }
input, select, textarea, button { font: inherit; }
.notice { padding: .5em 1em; margin-bottom: 1em; border-radius: 4px; }
.notice.error { background: #fde8e8; border: 1px solid #e5a3a3; }
.notice.done { background: #e6f4ea; border: 1px solid #9fd3ad; }
.status-dead, .status-rejected { color: #a11; font-weight: 600; }
.status-applied { color: #175e2a; }
.cards { display: flex; flex-wrap: wrap; gap: 1em; margin-bottom: 1em; }
.card { background: #fff; border: 1px solid #d5d9de; padding: .6em 1em; min-width: 10em; }
.card a { font-size: 1.6em; text-decoration: none; }
.choices a, .choices strong { margin-right: .8em; }
header nav { display: flex; flex-wrap: wrap; gap: .2em 0; }
@media (max-width: 40em) {
  header { flex-wrap: wrap; gap: .4em 1em; padding: .6em .8em; }
  header .who { margin-left: 0; }
  main { padding: .8em; }
}
/* The chart keeps its drawn size (a bar per minute, 3 px wide) and scrolls sideways where
   the screen is narrower, starting at its right end: the latest minutes. */
.chart-scroll { max-width: 100%; overflow-x: auto; direction: rtl; margin-bottom: 1em; }
svg.chart { direction: ltr; display: block; background: #fff; border: 1px solid #d5d9de; }
svg.chart .bar { fill: #1f3a5f; }
svg.chart .axis { stroke: #1b1f24; }
svg.chart .grid { stroke: #d5d9de; }
svg.chart text { font-size: 10px; fill: #4a525c; }
pre .xml-tag { color: #1f3a5f; font-weight: 600; }
pre .xml-attribute { color: #8a4b08; }
pre .xml-value { color: #175e2a; }
pre .xml-comment { color: #6b7280; font-style: italic; }
pre .xml-pi { color: #6b7280; }
.sign-in { max-width: 22em; background: #fff; border: 1px solid #d5d9de; padding: 1em 1.4em; }
.sign-in label { display: block; margin-bottom: .8em; }
.sign-in input { width: 100%; box-sizing: border-box; }
`;
