import type { LocalOrder, LocalPerson } from './local-bankid-orders.ts';
import { escapeHtml, visibleTextAsHtml } from './simple-markdown.ts';

/**
 * The HTML of the local BankID test server's page (local-bankid-page.ts), pure: the
 * orders waiting for a person, each with the text it shows, whom it requires, and a form
 * to approve it as a person (one of the people offered, or any personnummer) or refuse
 * it; then the orders that have ended. Every value from an order is escaped; there is
 * no script. Each form carries the page's token.
 */
export interface OrdersPageView {
  readonly orders: readonly LocalOrder[];
  readonly people: readonly LocalPerson[];
  readonly token: string;
  /** What became of the order just approved or refused. */
  readonly notice?: string;
}

export function renderOrdersPage(view: OrdersPageView): string {
  const pending = view.orders.filter((order) => order.state.status === 'pending').sort(newestFirst);
  const ended = view.orders.filter((order) => order.state.status !== 'pending').sort(newestFirst);
  return page('Local BankID test server', [
    '<h1>Local BankID test server</h1>',
    '<p class="note">This page stands in for the BankID app in the depot-gateway demo: approve an order as a person, or refuse it. ' +
      'It is not BankID, and nothing signed here says anything about a real person. <a href="/">Reload</a> to see new orders.</p>',
    view.notice ? `<p class="notice" role="status">${escapeHtml(view.notice)}</p>` : '',
    `<h2>Waiting for a person (${pending.length})</h2>`,
    pending.length === 0 ? '<p>No order is waiting. Start a signing in the gateway (POST /SignCase/{id}/Sign), then reload.</p>' : '',
    ...pending.map((order) => pendingOrder(order, view)),
    `<h2>Ended (${ended.length})</h2>`,
    ended.length === 0 ? '<p>None in the last minutes.</p>' : `<ul>${ended.map((order) => `<li>${escapeHtml(outcomeOf(order, view.people) ?? '')}</li>`).join('')}</ul>`,
  ]);
}

/** A page with one message and the way back, for a refused form. */
export function renderMessagePage(title: string, message: string): string {
  return page(title, [`<h1>${escapeHtml(title)}</h1>`, `<p>${escapeHtml(message)}</p>`, '<p><a href="/">Back to the orders</a></p>']);
}

/** What became of an order, in a sentence; undefined while it is pending. */
export function outcomeOf(order: LocalOrder, people: readonly LocalPerson[]): string | undefined {
  const ref = shortRef(order);
  switch (order.state.status) {
    case 'pending':
      return undefined;
    case 'complete': {
      const { user } = order.state.completionData;
      return `Order ${ref}: signed as ${nameOf(user.personalNumber, people) ?? user.name} (${user.personalNumber}).`;
    }
    case 'failed':
      return `Order ${ref}: failed, ${order.state.hintCode}.`;
    default:
      return order.state satisfies never;
  }
}

function pendingOrder(order: LocalOrder, view: OrdersPageView): string {
  const ref = escapeHtml(order.orderRef);
  const required = order.request.requirement?.personalNumber;
  const text = Buffer.from(order.request.userVisibleData, 'base64').toString('utf8');
  const format = order.request.userVisibleDataFormat ?? 'plaintext';
  const offered = required === undefined ? view.people : view.people.filter((person) => person.personalNumber === required);
  const options = offered.map((person) =>
    `<option value="${escapeHtml(person.personalNumber)}"${person.personalNumber === required ? ' selected' : ''}>${escapeHtml(`${person.givenName} ${person.surname} (${person.personalNumber})`)}</option>`);
  const otherValue = required !== undefined && offered.length === 0 ? ` value="${escapeHtml(required)}"` : '';
  const hidden = `<input type="hidden" name="token" value="${escapeHtml(view.token)}">`;
  return [
    `<article aria-labelledby="order-${ref}">`,
    `<h3 id="order-${ref}">Order ${escapeHtml(shortRef(order))}</h3>`,
    `<p class="meta">Made ${escapeHtml(new Date(order.createdAt).toISOString())} for ${escapeHtml(order.request.endUserIp)}; step ${escapeHtml(order.state.status === 'pending' ? order.state.hintCode : '')}. ` +
      (required === undefined ? 'Any BankID may sign it (the QR flow).' : `Only ${escapeHtml(required)} may sign it.`) + '</p>',
    `<section class="visible" aria-label="What the person reads and signs">${visibleTextAsHtml(text, format)}</section>`,
    `<form method="post" action="/orders/${ref}/approve">${hidden}`,
    `<label for="person-${ref}">Sign as</label> <select id="person-${ref}" name="personalNumber">${required === undefined ? '<option value="">(choose a person)</option>' : ''}${options.join('')}</select>`,
    `<label for="other-${ref}">or personnummer</label> <input id="other-${ref}" name="otherPersonalNumber" inputmode="numeric" pattern="[0-9]{12}" maxlength="12" placeholder="YYYYMMDDNNNN"${otherValue}>`,
    '<button type="submit">Approve</button></form>',
    `<form method="post" action="/orders/${ref}/refuse">${hidden}<button type="submit" class="refuse">Refuse</button></form>`,
    '</article>',
  ].join('\n');
}

function page(title: string, body: readonly string[]): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    '<style>body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:46rem;padding:1rem;color:#1a1a1a}' +
      'article{border:1px solid #767676;border-radius:.5rem;padding:0 1rem 1rem;margin:1rem 0}.visible{background:#f3f3f3;padding:.25rem 1rem;border-radius:.25rem}' +
      '.meta,.note{color:#444}.notice{background:#e6f4ea;padding:.5rem 1rem}form{display:inline-block;margin:.5rem .5rem 0 0}' +
      'button{font:inherit;padding:.4rem 1rem}select,input{font:inherit;margin:0 .5rem .5rem 0}.refuse{background:#fff;border:1px solid #a00;color:#a00}</style>',
    '</head><body><main>',
    ...body.filter((part) => part !== ''),
    '</main></body></html>',
    '',
  ].join('\n');
}

function newestFirst(a: LocalOrder, b: LocalOrder): number {
  return b.createdAt - a.createdAt;
}

function shortRef(order: LocalOrder): string {
  return order.orderRef.slice(0, 8);
}

function nameOf(personalNumber: string, people: readonly LocalPerson[]): string | undefined {
  const person = people.find((p) => p.personalNumber === personalNumber);
  return person ? `${person.givenName} ${person.surname}` : undefined;
}
