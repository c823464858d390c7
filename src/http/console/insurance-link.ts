import { html, type Html } from './html.ts';

/** An insurance number as a link to its page (/console/insurances/<number>), wherever a console page names one. */
export function insuranceLink(insuranceNumber: string | null | undefined): Html | string {
  if (!insuranceNumber) return '';
  return html`<a href="/console/insurances/${encodeURIComponent(insuranceNumber)}">${insuranceNumber}</a>`;
}
