import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { withConfiguredRates } from './charges/yield-tax-rates.ts';
import { accountDebit, birthDateOf, dailyValues, debitRun, debitRunKey, parseDebitRunKey, type AccountFacts } from './debit-run.ts';

const base: AccountFacts = {
  accountNumber: 'DEPA-1', insuranceNumber: 'INS-1', kind: 'K', insuredFrom: '2020-01-01',
  annualFixedCharge: '360', annualCapitalPercent: '0.5', birthDate: '1975-06-01',
  coverages: [{ type: 'repaymentProtection' }], deposits: [],
  valuations: [{ asOf: '2024-03-28', totalValue: '200000.00', cash: '500.00' }],
};

test('daily values carry the last close over weekends and count days before the first valuation as 0', () => {
  const values = dailyValues([{ asOf: '2024-04-03', totalValue: '10.00', cash: '0' }, { asOf: '2024-04-05', totalValue: '12.00', cash: '0' }], '2024-04-01', '2024-04-07');
  assert.deepEqual(values, ['0', '0', '10.00', '10.00', '12.00', '12.00', '12.00']);
  assert.equal(dailyValues([{ asOf: '2024-05-01', totalValue: '1', cash: '0' }], '2024-04-01', '2024-04-30'), undefined);
});

test('an account debit: lines per charge, zero lines left out, a sell order for what the cash lacks', () => {
  const outcome = accountDebit(base, 2024, 2);
  assert.ok('debit' in outcome);
  const { debit } = outcome;
  // 200 000.00 all 91 days of Q2 2024: capital 200 000 × 91 × 0.5 % / 366 = 91 000 / 366 = 248.6338… → 248.63
  // risk: band 40–49 (48 on 2024-04-01), 200 000 / 1 000 × 0.10 × 3 = 60.00; K deposits none → no yield tax line.
  assert.deepEqual(debit.lines.map((l) => [l.charge, l.amount, l.periodFrom, l.periodTo]), [
    ['FixedCharge', '90.00', '2024-04-01', '2024-06-30'],
    ['CapitalCharge', '248.63', '2024-04-01', '2024-06-30'],
    ['RiskPremium', '60.00', '2024-04-01', '2024-06-30'],
  ]);
  assert.equal(debit.total, '398.63');
  // Cash on the run date (2024-07-31) is the 500.00 of the latest valuation: it covers.
  assert.equal(debit.sellOrder, undefined);
  const poor = accountDebit({ ...base, valuations: [{ asOf: '2024-03-28', totalValue: '200000.00', cash: '100.50' }] }, 2024, 2);
  assert.ok('debit' in poor);
  assert.equal(poor.debit.sellOrder, '298.13'); // 398.63 − 100.50
});

test('accounts without values are held, insurances not in force skipped; a missing yield tax rate holds back the tax line alone', () => {
  const run = debitRun([
    { ...base, valuations: [] },
    { ...base, accountNumber: 'DEPA-2', insuranceNumber: 'INS-2', insuredFrom: '2025-01-01' },
    { ...base, accountNumber: 'DEPA-3', insuranceNumber: 'INS-3', kind: 'P', coverages: [], valuations: [{ asOf: '2025-12-31', totalValue: '1000.00', cash: '0' }] },
    { ...base, accountNumber: 'DEPA-4', insuranceNumber: 'INS-4', insuredFrom: '2026-01-01' },
  ], 2025, 4);
  assert.deepEqual(run.held.map((h) => h.accountNumber), ['DEPA-1']);
  assert.match(run.held[0]?.reason ?? '', /no custody values on or before 2025-12-31/);
  assert.deepEqual(run.debits.map((d) => d.accountNumber), ['DEPA-2', 'DEPA-3']);
  // The P account without a 2026 rate: February 2026 debits its charges (the whole quarter, at 0 until 31 December:
  // 90.00 fixed; capital 1 000.00 × 1 day × 0.5 % / 365 = 0.0136… → 0.01) and holds the tax on the opening value.
  const p = run.debits[1]!;
  assert.deepEqual(p.lines.map((l) => [l.charge, l.amount]), [['FixedCharge', '90.00'], ['CapitalCharge', '0.01']]);
  assert.equal(p.total, '90.01');
  assert.deepEqual(p.heldTax.map(({ reason: _reason, ...tax }) => tax), [
    { kind: 'P', basis: 'OpeningValue', taxYear: 2026, base: '1000.00', halfBase: false, periodFrom: '2026-01-01', periodTo: '2026-12-31' },
  ]);
  assert.match(p.heldTax[0]!.reason, /No yield tax rate for P\/T in tax year 2026 .*charges\.yieldTaxRates/);
  assert.deepEqual(p.caughtUp, []);
});

test('a held tax is debited by a later run once its rate is known, with its own basis and period, in the total and the sell order', () => {
  const pending = {
    heldBy: '2025-Q4', kind: 'P', basis: 'OpeningValue', taxYear: 2026, base: '1000000.00', halfBase: false,
    periodFrom: '2026-01-01', periodTo: '2026-12-31', reason: 'No yield tax rate for P/T in tax year 2026',
  } as const;
  const p: AccountFacts = {
    ...base, kind: 'P', coverages: [], pendingTaxes: [pending],
    valuations: [{ asOf: '2026-03-31', totalValue: '1000000.00', cash: '2000.00' }],
  };
  // Still no rate: the Q1 2026 run leaves it pending and debits the quarter.
  const without = accountDebit(p, 2026, 1);
  assert.ok('debit' in without);
  assert.deepEqual([without.debit.caughtUp, without.debit.lines.map((l) => l.charge)], [[], ['FixedCharge', 'CapitalCharge']]);
  // With the rate set: 1 000 000.00 × 0.355 % = 3 550.00, a line of its own beside the quarter's.
  const rates = withConfiguredRates({ 2026: { pt: '0.355' } });
  const withRate = accountDebit(p, 2026, 1, rates);
  assert.ok('debit' in withRate);
  const { debit } = withRate;
  // Q1 2026, 90 days: capital 1 000 000.00 × 1 day (31 March) × 0.5 % / 365 = 13.6986… → 13.70.
  assert.deepEqual(debit.lines.map((l) => [l.charge, l.basis, l.amount, l.periodFrom, l.periodTo, l.heldBy]), [
    ['FixedCharge', undefined, '90.00', '2026-01-01', '2026-03-31', undefined],
    ['CapitalCharge', undefined, '13.70', '2026-01-01', '2026-03-31', undefined],
    ['YieldTax', 'OpeningValue', '3550.00', '2026-01-01', '2026-12-31', '2025-Q4'],
  ]);
  assert.deepEqual(debit.caughtUp, [{ heldBy: '2025-Q4', basis: 'OpeningValue', periodFrom: '2026-01-01', periodTo: '2026-12-31', amount: '3550.00' }]);
  assert.equal(debit.total, '3653.70');
  assert.equal(debit.sellOrder, '1653.70'); // 3 653.70 − cash 2 000.00
  // An account held back for want of values takes nothing, the pending tax included.
  assert.deepEqual(accountDebit({ ...p, valuations: [] }, 2026, 1, rates), { held: { accountNumber: 'DEPA-1', insuranceNumber: 'INS-1', reason: 'no custody values on or before 2026-03-31' } });
});

test('an ended insurance: lines to its last day in force, no opening-value tax, skipped after its end', () => {
  const ended: AccountFacts = { ...base, insuredThrough: '2024-10-15', valuations: [{ asOf: '2024-09-30', totalValue: '100000.00', cash: '0' }, { asOf: '2024-12-31', totalValue: '50000.00', cash: '0' }] };
  const february = accountDebit(ended, 2024, 4);
  assert.ok('debit' in february);
  // 15 days at 100 000.00: fixed 360 × 15 / 368 = 14.67, capital 100 000 × 15 × 0.5 % / 366 = 20.49, risk 4.89.
  assert.deepEqual(february.debit.lines.map((l) => [l.charge, l.amount, l.periodFrom, l.periodTo]), [
    ['FixedCharge', '14.67', '2024-10-01', '2024-10-15'],
    ['CapitalCharge', '20.49', '2024-10-01', '2024-10-15'],
    ['RiskPremium', '4.89', '2024-10-01', '2024-10-15'],
  ]);
  // The same account still in force on 1 January pays the tax on its 31 December value (here 50 000.00 × 0.888 %).
  const kept = accountDebit({ ...ended, insuredThrough: undefined }, 2024, 4);
  assert.ok('debit' in kept);
  assert.deepEqual(kept.debit.lines.filter((l) => l.basis === 'OpeningValue').map((l) => l.amount), ['444.00']);
  assert.deepEqual(accountDebit({ ...base, insuredThrough: '2024-06-20' }, 2024, 3), { skipped: true });
});

test('a P/T rate set in the configuration debits the tax the built-in table would hold back; K keeps its built-in rate', () => {
  const p: AccountFacts = { ...base, accountNumber: 'DEPA-3', insuranceNumber: 'INS-3', kind: 'P', coverages: [], valuations: [{ asOf: '2025-12-31', totalValue: '1000000.00', cash: '0' }] };
  const rates = withConfiguredRates({ 2026: { pt: '0.355' } });
  assert.equal(rates[2026]?.k?.percent, '1.065', 'the built-in K figure stays');
  assert.deepEqual(rates[2026]?.pt, { percent: '0.355', confirmed: true, basis: 'set in the configuration (charges.yieldTaxRates)' });
  const run = debitRun([p, { ...base, valuations: [{ asOf: '2025-12-31', totalValue: '1000000.00', cash: '0' }] }], 2025, 4, rates);
  assert.deepEqual([run.held, run.debits.flatMap((d) => d.heldTax)], [[], []]);
  // February 2026: tax on the 2026 opening value, 1 000 000.00 × 0.355 % = 3 550.00 (P); K at 1.065 %: 10 650.00.
  const yieldTax = (account: string) => run.debits.find((d) => d.accountNumber === account)?.lines.filter((l) => l.charge === 'YieldTax').map((l) => l.amount);
  assert.deepEqual(yieldTax('DEPA-3'), ['3550.00']);
  assert.deepEqual(yieldTax('DEPA-1'), ['10650.00']);
});

test('run keys and birth dates', () => {
  assert.equal(debitRunKey(2026, 3), '2026-Q3');
  assert.deepEqual(parseDebitRunKey('2026-Q3'), { year: 2026, quarter: 3 });
  assert.equal(parseDebitRunKey('2026-Q5'), undefined);
  assert.equal(birthDateOf('197001011233'), '1970-01-01');
  assert.equal(birthDateOf('197001611233'), '1970-01-01'); // coordination number: day + 60
});
