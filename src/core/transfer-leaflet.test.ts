import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { checkReceivedLeaflet, conditionsOf, outgoingLeafletIds, taxCategoryOf, transferInStartDate, type TransferLeaflet } from './transfer-leaflet.ts';

const US = '5560360793';
const THEM = '5164012345';

const leaflet: TransferLeaflet = {
  messageId: 'DLI-TL-1', createdAt: '2026-11-02T09:15:00+01:00', releasingInsurer: THEM, receivingInsurer: US, releasingReference: 'DLI-FLYTT-1',
  insurance: {
    insuranceNumber: 'DLI-1', insuranceType: 'P', taxCategory: 'P', startDate: '2015-06-01', lastDayInForce: '2026-10-31',
    policyholder: '199003031235', insured: '199003031235',
  },
  value: { amount: '184250.00', valueDate: '2026-10-30' },
  conditions: { payoutRestriction: 'pension', earliestPayoutAge: 60, minimumPayoutMonths: 60, repaymentProtection: true },
};
const facts = { insurer: US, sender: THEM, today: '2026-11-27' };
const codes = (l: TransferLeaflet) => checkReceivedLeaflet(l, facts).map((problem) => problem.code);

test('pensions (P, T) are taxed as pension insurance, capital insurance (K) as capital insurance', () => {
  assert.deepEqual([taxCategoryOf('P'), taxCategoryOf('T'), taxCategoryOf('K')], ['P', 'P', 'K']);
});

test("a pension's capital keeps its restrictions: pension payout, 55 at the earliest, five years at least; a capital insurance has none", () => {
  const pension = conditionsOf({ type: 'T', payoutAge: 50, agreedPayoutFrom: null, repaymentProtection: false, beneficiary: null });
  assert.deepEqual(pension, { payoutRestriction: 'pension', earliestPayoutAge: 55, minimumPayoutMonths: 60, repaymentProtection: false });
  const capital = conditionsOf({ type: 'K', payoutAge: 65, agreedPayoutFrom: '2030-01-01', repaymentProtection: true, beneficiary: { choice: 'standard', names: [] } });
  assert.deepEqual(capital, { payoutRestriction: 'none', earliestPayoutAge: 65, agreedPayoutFrom: '2030-01-01', repaymentProtection: true, beneficiary: { choice: 'standard', names: [] } });
});

test('our leaflet of an insurance has ids of its own, the same every time', () => {
  assert.deepEqual(outgoingLeafletIds('INS-100006'), { messageId: 'TL-INS-100006', reference: 'FLYTT-INS-100006' });
});

test('a transfer in starts the day after its last day at the releasing insurer', () => {
  assert.equal(transferInStartDate('2026-10-31'), '2026-11-01');
  assert.equal(transferInStartDate('2026-12-31'), '2027-01-01');
});

test('a good leaflet from its own insurer to us passes', () => {
  assert.deepEqual(codes(leaflet), []);
});

test('each break of a received leaflet is named, every one at once', () => {
  assert.deepEqual(codes({ ...leaflet, receivingInsurer: '5569876542' }), ['TRANSFER_LEAFLET_MISADDRESSED']);
  assert.deepEqual(codes({ ...leaflet, releasingInsurer: '5569876542' }), ['INSURER_MISMATCH']);
  assert.deepEqual(codes({ ...leaflet, insurance: { ...leaflet.insurance, insured: '199003031234' } }), ['PERSONAL_IDENTITY_NUMBER_INVALID']);
  assert.deepEqual(codes({ ...leaflet, insurance: { ...leaflet.insurance, policyholder: '5561234560' } }), ['PERSONAL_IDENTITY_NUMBER_INVALID']);
  assert.deepEqual(codes({ ...leaflet, insurance: { ...leaflet.insurance, policyholder: '5561234567' } }), [], 'an employer may hold the policy');
  assert.deepEqual(codes({ ...leaflet, insurance: { ...leaflet.insurance, taxCategory: 'K' } }), ['TAX_CATEGORY_MISMATCH']);
  assert.deepEqual(codes({ ...leaflet, conditions: { ...leaflet.conditions, earliestPayoutAge: 50 } }), ['TRANSFER_CONDITIONS_INVALID']);
  assert.deepEqual(codes({ ...leaflet, conditions: { ...leaflet.conditions, payoutRestriction: 'none' } }), ['TRANSFER_CONDITIONS_INVALID']);
  assert.deepEqual(codes({ ...leaflet, conditions: { ...leaflet.conditions, minimumPayoutMonths: undefined } }), ['TRANSFER_CONDITIONS_INVALID']);
  assert.deepEqual(codes({ ...leaflet, value: { ...leaflet.value, valueDate: '2026-11-28' } }), ['TRANSFER_VALUE_DATE_IN_FUTURE']);
  assert.deepEqual(codes({ ...leaflet, insurance: { ...leaflet.insurance, lastDayInForce: '2015-05-31' } }), ['TRANSFER_CONDITIONS_INVALID']);
  assert.deepEqual(codes({ ...leaflet, receivingInsurer: '5569876542', insurance: { ...leaflet.insurance, taxCategory: 'K' } }), ['TRANSFER_LEAFLET_MISADDRESSED', 'TAX_CATEGORY_MISMATCH']);
});

test('a capital insurance carries no payout restriction to check', () => {
  const capital: TransferLeaflet = {
    ...leaflet,
    insurance: { ...leaflet.insurance, insuranceType: 'K', taxCategory: 'K' },
    conditions: { payoutRestriction: 'none', earliestPayoutAge: 0, repaymentProtection: true },
  };
  assert.deepEqual(codes(capital), []);
});
