import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { billingStopsIn, invoiceSpecification, monthSpan } from './invoice-specification.ts';
import type { InsuranceHistory, PersonHistory } from './person-history.ts';

function insurance(overrides: Partial<InsuranceHistory> & { insuranceNumber: string }): InsuranceHistory {
  return {
    productCode: 'TJP-DEPA', startDate: '2020-01-01', paidUpFrom: null, end: null,
    premiums: [{ effectiveDate: '2020-01-01', monthlyAmount: '1800.00' }], fees: [], billing: [], extraPremiums: [], allocations: [], transfers: [],
    ...overrides,
  };
}

function person(pin: string, insurances: InsuranceHistory[], overrides: Partial<PersonHistory> = {}): PersonHistory {
  return {
    agreementNumber: 'AGR-1', personalIdentityNumber: pin,
    employment: { startDate: '2020-01-01', endDate: null, endReason: null },
    salaries: [], categories: [{ effectiveDate: '2020-01-01', categoryCode: 'TJM' }], costCenters: [{ effectiveDate: '2020-01-01', costCenter: '100' }],
    insurances, ...overrides,
  };
}

test('a month spans its days, February of a leap year 29', () => {
  assert.deepEqual(monthSpan('2024-02'), { firstDay: '2024-02-01', lastDay: '2024-02-29', days: 29 });
  assert.deepEqual(monthSpan('2026-11'), { firstDay: '2026-11-01', lastDay: '2026-11-30', days: 30 });
});

test('a full month costs exactly the monthly premium; the totals add the rounded lines', () => {
  const spec = invoiceSpecification('AGR-1', '2026-11', [
    person('198002021239', [insurance({ insuranceNumber: 'INS-2' })]),
    person('197001011233', [insurance({ insuranceNumber: 'INS-1', premiums: [{ effectiveDate: '2020-01-01', monthlyAmount: '1000' }] })]),
  ]);
  assert.deepEqual(spec.insured.map((line) => line.personalIdentityNumber), ['197001011233', '198002021239']);
  assert.deepEqual(spec.insured.map((line) => line.insurances[0]!.premium), ['1000.00', '1800.00']);
  assert.equal(spec.insured[0]!.insurances[0]!.billedDays, 30);
  assert.deepEqual(spec.totals, { insuredCount: 2, premiums: '2800.00', extraPremiums: '0.00', total: '2800.00', previousMonthTotal: '2800.00' });
  assert.deepEqual(spec.costCenters, [{ costCenter: '100', total: '2800.00' }]);
});

test('a billing stop mid-month bills the days before it, and the stop and its period are listed', () => {
  const stopped = insurance({ insuranceNumber: 'INS-3', billing: [{ effectiveDate: '2026-11-16', event: 'Stop', reason: 'ParentalLeave' }] });
  const spec = invoiceSpecification('AGR-1', '2026-11', [person('199003031235', [stopped])]);
  const line = spec.insured[0]!.insurances[0]!;
  // 15 of 30 days of 1800.
  assert.equal(line.premium, '900.00');
  assert.equal(line.billedDays, 15);
  assert.deepEqual(line.billingStops, [{ from: '2026-11-16', to: null, reason: 'ParentalLeave', daysInMonth: 15 }]);
  assert.deepEqual(spec.insured[0]!.changes, [{ kind: 'BillingStopped', effectiveDate: '2026-11-16', insuranceNumber: 'INS-3', to: 'ParentalLeave' }]);
  // The month after: stopped all month, listed at nothing, with its stop.
  const december = invoiceSpecification('AGR-1', '2026-12', [person('199003031235', [stopped])]).insured[0]!.insurances[0]!;
  assert.equal(december.premium, '0.00');
  assert.equal(december.previousMonthTotal, '900.00');
  assert.equal(december.billingStops[0]!.daysInMonth, 31);
});

test('a stop ended by a start covers the days up to the day before the start', () => {
  const stops = billingStopsIn({ billing: [
    { effectiveDate: '2026-09-01', event: 'Stop', reason: 'ParentalLeave' },
    { effectiveDate: '2026-11-10', event: 'Start', reason: null },
    { effectiveDate: '2026-12-05', event: 'Stop', reason: 'OtherLeave' },
  ] }, '2026-11');
  assert.deepEqual(stops, [{ from: '2026-09-01', to: '2026-11-09', reason: 'ParentalLeave', daysInMonth: 9 }]);
});

test('a premium change mid-month is billed by the day at each rate, rounded half up once', () => {
  const changed = insurance({ insuranceNumber: 'INS-4', premiums: [{ effectiveDate: '2020-01-01', monthlyAmount: '1000' }, { effectiveDate: '2026-11-21', monthlyAmount: '1001' }] });
  const spec = invoiceSpecification('AGR-1', '2026-11', [person('197001011233', [changed])]);
  const line = spec.insured[0]!.insurances[0]!;
  // (20 × 1000 + 10 × 1001) / 30 = 30010 / 30 = 1000.3333… → 1000.33
  assert.equal(line.premium, '1000.33');
  assert.equal(line.monthlyPremium, '1001.00');
  assert.deepEqual(spec.insured[0]!.changes, [{ kind: 'PremiumChanged', effectiveDate: '2026-11-21', insuranceNumber: 'INS-4', from: '1000.00', to: '1001.00' }]);
});

test('extra premiums due in the month are added; paid-up insurances are left out the months after', () => {
  const withExtra = insurance({ insuranceNumber: 'INS-5', extraPremiums: [
    { invoiceNumber: 'XP-000001', amount: '5000', dueDate: '2026-11-30' }, { invoiceNumber: 'XP-000002', amount: '100', dueDate: '2026-12-01' },
  ] });
  const paidUp = insurance({ insuranceNumber: 'INS-6', paidUpFrom: '2026-07-01' });
  const spec = invoiceSpecification('AGR-1', '2026-11', [person('197001011233', [withExtra, paidUp])]);
  assert.deepEqual(spec.insured[0]!.insurances.map((line) => line.insuranceNumber), ['INS-5']);
  assert.deepEqual(spec.insured[0]!.insurances[0]!.extraPremiums, [{ invoiceNumber: 'XP-000001', amount: '5000.00', dueDate: '2026-11-30' }]);
  assert.deepEqual(spec.totals, { insuredCount: 1, premiums: '1800.00', extraPremiums: '5000.00', total: '6800.00', previousMonthTotal: '1800.00' });
  const july = invoiceSpecification('AGR-1', '2026-07', [person('197001011233', [paidUp])]);
  assert.equal(july.insured.length, 0, 'paid-up from the 1st: not invoiced that month');
  const june = invoiceSpecification('AGR-1', '2026-06', [person('197001011233', [insurance({ ...paidUp, paidUpFrom: '2026-06-16' })])]);
  assert.equal(june.insured[0]!.insurances[0]!.premium, '900.00');
  assert.deepEqual(june.insured[0]!.changes.map((change) => change.kind), ['PaidUp']);
});

test('a new insurance, a new cost center and an ended employment are changes of their month', () => {
  const started = insurance({ insuranceNumber: 'INS-7', startDate: '2026-11-11', premiums: [{ effectiveDate: '2026-11-11', monthlyAmount: '3000' }] });
  const ended = insurance({ insuranceNumber: 'INS-8', end: { lastDay: '2026-11-05', cause: 'transferred-out' } });
  const spec = invoiceSpecification('AGR-1', '2026-11', [
    person('199204221239', [started], { employment: { startDate: '2026-11-11', endDate: null, endReason: null }, categories: [{ effectiveDate: '2026-11-11', categoryCode: 'TJM' }],
      costCenters: [{ effectiveDate: '2026-11-11', costCenter: '100' }, { effectiveDate: '2026-11-20', costCenter: '300' }] }),
    person('197607151235', [ended], { employment: { startDate: '2020-01-01', endDate: '2026-11-05', endReason: 'Resignation' } }),
  ]);
  const [eva, filip] = spec.insured;
  assert.equal(filip!.insurances[0]!.premium, '2000.00');
  assert.equal(filip!.costCenter, '300');
  assert.deepEqual(filip!.changes.map((change) => [change.kind, change.effectiveDate, change.from, change.to]), [
    ['NewInsurance', '2026-11-11', undefined, undefined], ['CostCenterChanged', '2026-11-20', '100', '300'],
  ]);
  assert.equal(eva!.insurances[0]!.premium, '300.00');
  assert.deepEqual(eva!.changes.map((change) => change.kind), ['EmploymentEnded', 'InsuranceEnded']);
  assert.deepEqual(spec.costCenters, [{ costCenter: '100', total: '300.00' }, { costCenter: '300', total: '2000.00' }]);
  assert.equal(spec.totals.total, '2300.00');
});
