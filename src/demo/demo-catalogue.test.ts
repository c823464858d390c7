import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { DEMO_DOCUMENTS, DEMO_STANDARD_CHARGES } from './demo-catalogue.ts';
import { DEMO_SQL } from './demo-data.ts';

test("every version of a demo product sheet states the capital charge the demo ledger debits", () => {
  const stated = DEMO_DOCUMENTS.flatMap((document) => document.lines.flatMap((line) => [...line.matchAll(/kapitalavgift ([\d,]+) %/g)].map((match) => [`${document.id} v${document.version}`, match[1]])));
  assert.deepEqual(stated, [['KF-DEPA-PPI v1', '0,35'], ['KF-DEPA-PPI v2', '0,35']]);
  assert.equal(DEMO_STANDARD_CHARGES.capitalPercent, '0.35');
  assert.match(DEMO_SQL, /\('CapitalCharge', 0\.35::numeric\)/, "the demo insurances' capital charge");
});
