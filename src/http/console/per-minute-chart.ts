import type { MinuteCount } from '../../ledger/messages/documents-per-minute.repository.ts';
import { html, type Html } from './html.ts';

/**
 * The overview's chart of documents received per minute: an inline SVG drawn on the
 * server (no script, nothing for the Content-Security-Policy to allow), one bar per
 * minute of the span — minutes without a document drawn as nothing — with the busiest
 * minute's count on the scale and the hours marked in Stockholm time. Each bar carries
 * its count (`data-count`) and a tooltip. It is drawn at its own size inside a box that
 * scrolls sideways on a screen narrower than it, so a bar never shrinks below its 3 px.
 */
const BAR_WIDTH = 4;
const HEIGHT = 120;
const LEFT = 40;
const BOTTOM = 18;
/** Room right of the last minute for its hour's label. */
const RIGHT = 16;
const MINUTE_MS = 60_000;

export function perMinuteChart(counts: readonly MinuteCount[], from: Date, to: Date): Html {
  const minutes = Math.max(1, Math.round((to.getTime() - from.getTime()) / MINUTE_MS));
  const width = LEFT + minutes * BAR_WIDTH;
  const busiest = Math.max(1, ...counts.map((count) => count.count));
  const total = counts.reduce((sum, count) => sum + count.count, 0);
  const bars = counts.map((count) => {
    const slot = Math.floor((count.minute.getTime() - from.getTime()) / MINUTE_MS);
    const height = Math.max(1, Math.round((count.count / busiest) * HEIGHT));
    return html`<rect class="bar" x="${LEFT + slot * BAR_WIDTH}" y="${HEIGHT - height}" width="${BAR_WIDTH - 1}" height="${height}" data-count="${count.count}"><title>${clock(count.minute)}: ${count.count}</title></rect>`;
  });
  const hours = hourMarks(from, to).map((at) => {
    const x = LEFT + ((at.getTime() - from.getTime()) / MINUTE_MS) * BAR_WIDTH;
    return html`<line class="grid" x1="${x}" y1="0" x2="${x}" y2="${HEIGHT}"/><text x="${x}" y="${HEIGHT + 14}" text-anchor="middle">${clock(at)}</text>`;
  });
  return html`<div class="chart-scroll"><svg id="per-minute" class="chart" role="img" viewBox="0 0 ${width + RIGHT} ${HEIGHT + BOTTOM}" width="${width + RIGHT}" height="${HEIGHT + BOTTOM}" data-total="${total}">
<title>Documents per minute, ${clock(from)}–${clock(to)}: ${total} in all, at most ${counts.length === 0 ? 0 : busiest} a minute</title>
<line class="axis" x1="${LEFT}" y1="${HEIGHT}" x2="${width}" y2="${HEIGHT}"/>
<text x="${LEFT - 4}" y="10" text-anchor="end">${counts.length === 0 ? 0 : busiest}</text><text x="${LEFT - 4}" y="${HEIGHT}" text-anchor="end">0</text>
${hours}${bars}
</svg></div>`;
}

/** The whole hours within the span. */
function hourMarks(from: Date, to: Date): Date[] {
  const marks: Date[] = [];
  for (let at = Math.ceil(from.getTime() / (60 * MINUTE_MS)) * 60 * MINUTE_MS; at < to.getTime(); at += 60 * MINUTE_MS) marks.push(new Date(at));
  return marks;
}

function clock(at: Date): string {
  return at.toLocaleTimeString('sv-SE', { timeZone: 'Europe/Stockholm', hour: '2-digit', minute: '2-digit' });
}
