import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { checkPlanSelectable, checkProductKind, checkSomethingToMove, plansInForceFrom, type DistributionPlan } from './transfer.rules.ts';

test('a move within the same kind is allowed; across kinds it is PRODUCT_KIND_MISMATCH naming both kinds', () => {
  assert.equal(checkProductKind('INS-1', { code: 'TJP-DEPA', kind: 'T' }, { code: 'TJP-DEPA-ESG', kind: 'T' }), undefined);
  const rejection = checkProductKind('INS-1', { code: 'TJP-DEPA', kind: 'T' }, { code: 'KF-DEPA', kind: 'K' });
  assert.equal(rejection?.code, 'PRODUCT_KIND_MISMATCH');
  assert.match(rejection.text, /occupational pension \(kind T, product TJP-DEPA\) but product KF-DEPA is a capital insurance \(kind K\)/);
});

test('a transfer must change the product or the custody account', () => {
  const from = { productCode: 'TJP-DEPA', custodyAccount: 'DEPA-1' };
  assert.equal(checkSomethingToMove('INS-1', from, { productCode: 'TJP-DEPA', custodyAccount: 'DEPA-2' }), undefined);
  assert.equal(checkSomethingToMove('INS-1', from, { productCode: 'TJP-DEPA-ESG', custodyAccount: 'DEPA-1' }), undefined);
  const rejection = checkSomethingToMove('INS-1', from, { ...from });
  assert.equal(rejection?.code, 'TRANSFER_NOTHING_TO_MOVE');
  assert.match(rejection.text, /already has product TJP-DEPA and custody account DEPA-1/);
});

const plans: DistributionPlan[] = [
  { effectiveDate: '2020-01-01', isins: ['SE000DEPA010', 'SE000DEPA044'] },
  { effectiveDate: '2026-06-01', isins: ['SE000DEPA028'] },
  { effectiveDate: '2027-01-01', isins: ['SE000DEPA036'] },
  { effectiveDate: '2027-01-01', isins: ['SE000DEPA044'] },
];

test('the plans in force from a date are the one current that day and every later one; the last of a day counts', () => {
  assert.deepEqual(plansInForceFrom(plans, '2026-12-01').map((plan) => plan.isins[0]), ['SE000DEPA028', 'SE000DEPA044']);
  assert.deepEqual(plansInForceFrom(plans, '2026-06-01').map((plan) => plan.isins[0]), ['SE000DEPA028', 'SE000DEPA044']);
  assert.deepEqual(plansInForceFrom(plans, '2019-01-01').length, 3);
  assert.deepEqual(plansInForceFrom([], '2026-12-01'), []);
});

test('every fund of the plans in force from the transfer date must be selectable in the target product', () => {
  const esg = { code: 'TJP-DEPA-ESG', funds: new Set(['SE000DEPA036', 'SE000DEPA044']) };
  const demo = [{ effectiveDate: '2020-01-01', isins: ['SE000DEPA010', 'SE000DEPA044'] }];
  const rejection = checkPlanSelectable('INS-1', demo, '2026-12-01', esg);
  assert.equal(rejection?.code, 'FUND_NOT_SELECTABLE');
  assert.match(rejection.text, /Fund SE000DEPA010 of the distribution plan of insurance INS-1 from 2020-01-01 cannot be chosen in product TJP-DEPA-ESG/);
  const changed = [...demo, { effectiveDate: '2026-12-01', isins: ['SE000DEPA036'] }];
  assert.equal(checkPlanSelectable('INS-1', changed, '2026-12-01', esg), undefined);
  assert.equal(checkPlanSelectable('INS-1', changed, '2026-11-30', esg)?.code, 'FUND_NOT_SELECTABLE');
  assert.equal(checkPlanSelectable('INS-1', [], '2026-12-01', esg), undefined);
});
