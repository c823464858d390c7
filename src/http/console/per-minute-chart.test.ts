import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { perMinuteChart } from './per-minute-chart.ts';

test('one bar per minute with documents, placed by its minute and scaled to the busiest', () => {
  const from = new Date('2026-11-02T09:00:00Z');
  const to = new Date('2026-11-02T12:00:00Z');
  const svg = perMinuteChart([{ minute: new Date('2026-11-02T09:00:00Z'), count: 2 }, { minute: new Date('2026-11-02T10:30:00Z'), count: 8 }], from, to).text;
  const bars = [...svg.matchAll(/<rect class="bar" x="(\d+)" y="(\d+)" width="3" height="(\d+)" data-count="(\d+)">/g)].map((bar) => bar.slice(1).map(Number));
  assert.deepEqual(bars, [[40, 90, 30, 2], [40 + 90 * 4, 0, 120, 8]]);
  assert.match(svg, /data-total="10"/);
  assert.deepEqual([...svg.matchAll(/text-anchor="middle">([\d:]+)</g)].map((mark) => mark[1]), ['10:00', '11:00', '12:00'], 'Stockholm hours (UTC+1 in November)');
});

test('an empty span is an empty chart, not a failure', () => {
  const svg = perMinuteChart([], new Date('2026-11-02T09:00:00Z'), new Date('2026-11-02T10:00:00Z')).text;
  assert.doesNotMatch(svg, /class="bar"/);
  assert.match(svg, /data-total="0"/);
});
