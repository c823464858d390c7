import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { capitalCharge, fixedCharge, levyYieldTax, quarterDebit, riskPremium, yieldTax, type QuarterDebitInput } from './charges.ts';
import { withConfiguredRates } from './yield-tax-rates.ts';

// Worked examples: the four debit runs made in 2024 — February (Q4 2023 plus the yield
// tax on the 2024 opening value), end of April (Q1), July (Q2), October (Q3) — for one
// insurance of each kind. Every expected figure is worked out by hand beside it.
// Day counts: Q4 2023 has 92 days in a 365-day year; 2024 is a leap year (366 days)
// with Q1 = 91, Q2 = 91, Q3 = 92 days. Rates: demo risk rates (band 40–49: 0.10,
// 50–59: 0.25, 60–64: 0.50 SEK a month per 1 000; waiver 3.5 %); yield tax P/T 2024
// 0.372 %, K 2023 0.882 %, K 2024 1.086 %, K 2025 0.888 %.

const quarterlyPremium = (date: string) => [{ date, amount: '6000.00' }];

test('P, private pension: the four debit runs of 2024, to the öre', () => {
  // Born 1964-05-20: 59 on 2023-10-01, 2024-01-01 and 2024-04-01 (band 50–59), 60 on
  // 2024-07-01 (band 60–64). Capital charge 0.4 % a year; fixed charge the default 360.
  const insurance = {
    kind: 'P',
    annualCapitalPercent: '0.4',
    birthDate: '1964-05-20',
    coverages: [{ type: 'repaymentProtection' }, { type: 'premiumWaiver', premiums: '6000.00' }],
  } as const;

  const february = quarterDebit({
    ...insurance, year: 2023, quarter: 4, values: { averageValue: '1234567.89' },
    deposits: quarterlyPremium('2023-10-25'), yearEndValue: '1250000.00',
  });
  assert.equal(february.fixedCharge, '90.00'); // 360 × 92 / (4 × 92) = 90
  // 1 234 567.89 × 92 = 113 580 245.88; × 0.4 % = 454 320.98352; / 365 = 1 244.7150… → 1 244.72
  assert.equal(february.capitalCharge, '1244.72');
  // repayment protection: 1 234 567.89 / 1 000 × 0.25 × 3 = 925.9259175 → 925.93; waiver: 6 000 × 3.5 % = 210.00
  assert.deepEqual(february.riskPremiumByCoverage, [{ type: 'repaymentProtection', amount: '925.93' }, { type: 'premiumWaiver', amount: '210.00' }]);
  assert.equal(february.riskPremium, '1135.93'); // 925.93 + 210.00
  assert.equal(february.yieldTaxOnDeposits, '0.00'); // P: the base is the opening value alone
  assert.equal(february.yieldTaxOnOpeningValue, '4650.00'); // 1 250 000.00 × 0.372 % (2024) = 4 650.00
  assert.equal(february.yieldTax, '4650.00');
  assert.equal(february.total, '7120.65'); // 90.00 + 1 244.72 + 1 135.93 + 4 650.00

  const april = quarterDebit({ ...insurance, year: 2024, quarter: 1, values: { averageValue: '1262345.67' }, deposits: quarterlyPremium('2024-01-25') });
  // 1 262 345.67 × 91 = 114 873 455.97; × 0.4 % = 459 493.82388; / 366 = 1 255.4476… → 1 255.45
  assert.equal(april.capitalCharge, '1255.45');
  assert.equal(april.riskPremium, '1156.76'); // 1 262 345.67 / 1 000 × 0.25 × 3 = 946.7592525 → 946.76; + 210.00
  assert.equal(april.yieldTax, '0.00'); // no opening-value tax outside February; P deposits are not taxed
  assert.equal(april.total, '2502.21'); // 90.00 + 1 255.45 + 1 156.76

  const july = quarterDebit({ ...insurance, year: 2024, quarter: 2, values: { averageValue: '1301234.56' }, deposits: quarterlyPremium('2024-04-25') });
  // 1 301 234.56 × 91 = 118 412 344.96; × 0.4 % = 473 649.37984; / 366 = 1 294.1239… → 1 294.12
  assert.equal(july.capitalCharge, '1294.12');
  // still 59 on 2024-04-01, though 60 from 2024-05-20: the band moves next quarter.
  // 1 301 234.56 / 1 000 × 0.25 × 3 = 975.92592 → 975.93; + 210.00
  assert.equal(july.riskPremium, '1185.93');
  assert.equal(july.total, '2570.05'); // 90.00 + 1 294.12 + 1 185.93

  const october = quarterDebit({ ...insurance, year: 2024, quarter: 3, values: { averageValue: '1320987.65' }, deposits: quarterlyPremium('2024-07-25') });
  // 1 320 987.65 × 92 = 121 530 863.80; × 0.4 % = 486 123.4552; / 366 = 1 328.2061… → 1 328.21
  assert.equal(october.capitalCharge, '1328.21');
  // 60 on 2024-07-01, band 60–64: 1 320 987.65 / 1 000 × 0.50 × 3 = 1 981.481475 → 1 981.48; + 210.00
  assert.equal(october.riskPremium, '2191.48');
  assert.equal(october.total, '3609.69'); // 90.00 + 1 328.21 + 2 191.48
});

test('T, occupational pension: a lower fixed charge, premium waiver only, daily values', () => {
  // Born 1985-11-02; no repayment protection chosen, so age does not matter. Fixed
  // charge 300 a year (75 a quarter), capital charge 0.25 % a year.
  const insurance = {
    kind: 'T',
    annualFixedCharge: '300',
    annualCapitalPercent: '0.25',
    birthDate: '1985-11-02',
    coverages: [{ type: 'premiumWaiver', premiums: '4500.00' }],
    deposits: [],
  } as const;

  const february = quarterDebit({ ...insurance, year: 2023, quarter: 4, values: { averageValue: '456789.01' }, yearEndValue: '470123.45' });
  assert.equal(february.fixedCharge, '75.00'); // 300 × 92 / (4 × 92)
  // 456 789.01 × 92 = 42 024 588.92; × 0.25 % = 105 061.4723; / 365 = 287.8396… → 287.84
  assert.equal(february.capitalCharge, '287.84');
  assert.equal(february.riskPremium, '157.50'); // 4 500.00 × 3.5 %
  assert.equal(february.yieldTaxOnOpeningValue, '1748.86'); // 470 123.45 × 0.372 % = 1 748.859234 → 1 748.86
  assert.equal(february.total, '2269.20'); // 75.00 + 287.84 + 157.50 + 1 748.86

  // Q1 2024 from one value a calendar day: 45 days at 475 000.00 and 46 at 485 000.00.
  const dailyValues = [...Array<string>(45).fill('475000.00'), ...Array<string>(46).fill('485000.00')];
  const april = quarterDebit({ ...insurance, year: 2024, quarter: 1, values: { dailyValues } });
  // Σ = 45 × 475 000 + 46 × 485 000 = 21 375 000 + 22 310 000 = 43 685 000; × 0.25 % = 109 212.50; / 366 = 298.3948… → 298.39
  assert.equal(april.capitalCharge, '298.39');
  assert.equal(april.total, '530.89'); // 75.00 + 298.39 + 157.50

  const july = quarterDebit({ ...insurance, year: 2024, quarter: 2, values: { averageValue: '495555.55' } });
  // 495 555.55 × 91 = 45 095 555.05; × 0.25 % = 112 738.887625; / 366 = 308.0297… → 308.03
  assert.equal(july.capitalCharge, '308.03');
  assert.equal(july.total, '540.53'); // 75.00 + 308.03 + 157.50

  const october = quarterDebit({ ...insurance, year: 2024, quarter: 3, values: { averageValue: '501010.10' } });
  // 501 010.10 × 92 = 46 092 929.20; × 0.25 % = 115 232.323; / 366 = 314.8424… → 314.84
  assert.equal(october.capitalCharge, '314.84');
  assert.equal(october.total, '547.34'); // 75.00 + 314.84 + 157.50
});

test('K, capital insurance: the four debit runs of 2024, then the year’s yield tax and the February 2025 run', () => {
  // Born 1978-03-15: 45 on 2023-10-01 and 2024-01-01, 46 from 2024-04-01, 46 on
  // 2024-10-01: band 40–49 throughout, 0.10 × 3 months = 0.30 per 1 000 a quarter.
  // Capital charge 0.6 % a year.
  const insurance = { kind: 'K', annualCapitalPercent: '0.6', birthDate: '1978-03-15', coverages: [{ type: 'repaymentProtection' }] } as const;
  const deposits = {
    q4of2023: [{ date: '2023-11-15', amount: '10000.00' }, { date: '2023-12-20', amount: '5000.00' }],
    q1: [{ date: '2024-02-10', amount: '25000.00' }],
    q2: [{ date: '2024-06-30', amount: '12345.67' }], // last day of the first half: counts in full
    q3: [{ date: '2024-07-01', amount: '20000.00' }], // first day of the second half: counts at half
    q4: [{ date: '2024-12-31', amount: '7777.77' }],
  };

  const february = quarterDebit({ ...insurance, year: 2023, quarter: 4, values: { averageValue: '612345.67' }, deposits: deposits.q4of2023, yearEndValue: '625000.00' });
  assert.equal(february.fixedCharge, '90.00');
  // 612 345.67 × 92 = 56 335 801.64; × 0.6 % = 338 014.80984; / 365 = 926.0679… → 926.07
  assert.equal(february.capitalCharge, '926.07');
  assert.equal(february.riskPremium, '183.70'); // 612 345.67 / 1 000 × 0.30 = 183.703701 → 183.70
  // Q4 2023 deposits at 2023's rate, at half: 15 000.00 × 0.882 % / 2 = 66.15
  assert.equal(february.yieldTaxOnDeposits, '66.15');
  // 2024 opening value at 2024's rate: 625 000.00 × 1.086 % = 6 787.50
  assert.equal(february.yieldTaxOnOpeningValue, '6787.50');
  assert.equal(february.yieldTax, '6853.65'); // 66.15 + 6 787.50
  assert.equal(february.total, '8053.42'); // 90.00 + 926.07 + 183.70 + 6 853.65

  const april = quarterDebit({ ...insurance, year: 2024, quarter: 1, values: { averageValue: '640111.11' }, deposits: deposits.q1 });
  // 640 111.11 × 91 = 58 250 111.01; × 0.6 % = 349 500.66606; / 366 = 954.9198… → 954.92
  assert.equal(april.capitalCharge, '954.92');
  assert.equal(april.riskPremium, '192.03'); // 640 111.11 / 1 000 × 0.30 = 192.033333 → 192.03
  assert.equal(april.yieldTax, '271.50'); // 25 000.00 × 1.086 % = 271.50
  assert.equal(april.total, '1508.45'); // 90.00 + 954.92 + 192.03 + 271.50

  const july = quarterDebit({ ...insurance, year: 2024, quarter: 2, values: { averageValue: '655222.22' }, deposits: deposits.q2 });
  // 655 222.22 × 91 = 59 625 222.02; × 0.6 % = 357 751.33212; / 366 = 977.4626… → 977.46
  assert.equal(july.capitalCharge, '977.46');
  assert.equal(july.riskPremium, '196.57'); // 655 222.22 / 1 000 × 0.30 = 196.566666 → 196.57
  assert.equal(july.yieldTax, '134.07'); // 12 345.67 × 1.086 % = 134.0739762 → 134.07
  assert.equal(july.total, '1398.10'); // 90.00 + 977.46 + 196.57 + 134.07

  const october = quarterDebit({ ...insurance, year: 2024, quarter: 3, values: { averageValue: '668333.33' }, deposits: deposits.q3 });
  // 668 333.33 × 92 = 61 486 666.36; × 0.6 % = 368 919.99816; / 366 = 1 007.9781… → 1 007.98
  assert.equal(october.capitalCharge, '1007.98');
  assert.equal(october.riskPremium, '200.50'); // 668 333.33 / 1 000 × 0.30 = 200.499999 → 200.50
  assert.equal(october.yieldTax, '108.60'); // 20 000.00 × 1.086 % / 2 = 108.60
  assert.equal(october.total, '1407.08'); // 90.00 + 1 007.98 + 200.50 + 108.60

  // The whole 2024 tax: base = 625 000.00 + 25 000.00 + 12 345.67 + (20 000.00 + 7 777.77) / 2 = 676 234.555.
  const year = yieldTax({ kind: 'K', year: 2024, openingValue: '625000.00', deposits: [...deposits.q1, ...deposits.q2, ...deposits.q3, ...deposits.q4] });
  assert.equal(year.onOpeningValue, '6787.50');
  // Q4: 7 777.77 × 1.086 % / 2 = 42.2332911 → 42.23; the others as debited above.
  assert.deepEqual(year.onDepositsByQuarter, { 1: '271.50', 2: '134.07', 3: '108.60', 4: '42.23' });
  assert.equal(year.onDeposits, '556.40'); // 271.50 + 134.07 + 108.60 + 42.23
  // 6 787.50 + 556.40. The base × rate rounded once is 676 234.555 × 1.086 % = 7 343.907… → 7 343.91:
  // rounding each quarter on its own costs the policy 1 öre here (at most 2, see yield-tax.ts).
  assert.equal(year.total, '7343.90');
  assert.equal(year.rateConfirmed, true);

  // February 2025: Q4 2024's deposits at 2024's rate, the 2025 opening value at 2025's.
  const february2025 = quarterDebit({ ...insurance, year: 2024, quarter: 4, values: { averageValue: '680000.00' }, deposits: deposits.q4, yearEndValue: '690000.00' });
  assert.equal(february2025.capitalCharge, '1025.57'); // 680 000 × 92 × 0.6 % / 366 = 375 360 / 366 = 1 025.5737… → 1 025.57
  assert.equal(february2025.riskPremium, '204.00'); // 680 000 / 1 000 × 0.30
  assert.equal(february2025.yieldTaxOnDeposits, '42.23');
  assert.equal(february2025.yieldTaxOnOpeningValue, '6127.20'); // 690 000.00 × 0.888 % = 6 127.20
  assert.equal(february2025.total, '7489.00'); // 90.00 + 1 025.57 + 204.00 + 42.23 + 6 127.20
});

test('an insurance that starts or ends inside a quarter pays for its days in force', () => {
  // In force from 2024-02-15: 15 days of February (15th–29th) + 31 of March = 46 of Q1's 91.
  const period = { year: 2024, quarter: 1, insuredFrom: '2024-02-15' } as const;
  assert.equal(fixedCharge(period), '45.49'); // 360 × 46 / (4 × 91) = 16 560 / 364 = 45.4945… → 45.49
  // Born 1990-02-20: 33 on 2024-02-15, the first day in force (34 only on the 20th): band 30–39, 0.05.
  // 100 000.00 × 46 days × 0.05 × 3 months / (1 000 × 91 days) = 690 000 / 91 000 = 7.5824… → 7.58
  const risk = riskPremium([{ type: 'repaymentProtection' }], { period, birthDate: '1990-02-20', values: { averageValue: '100000.00' } });
  assert.equal(risk.total, '7.58');
  const input: QuarterDebitInput = {
    kind: 'P', year: 2024, quarter: 1, insuredFrom: '2024-02-15', annualCapitalPercent: '0.4',
    values: { averageValue: '100000.00' }, birthDate: '1990-02-20', coverages: [{ type: 'repaymentProtection' }], deposits: [],
  };
  const debit = quarterDebit(input);
  assert.equal(debit.capitalCharge, '50.27'); // 100 000.00 × 46 × 0.4 % / 366 = 18 400 / 366 = 50.2732… → 50.27
  assert.equal(debit.total, '103.34'); // 45.49 + 50.27 + 7.58
  // Ended 2024-08-10: 31 days of July + 10 of August = 41 of Q3's 92: 360 × 41 / 368 = 40.1086… → 40.11
  assert.equal(fixedCharge({ year: 2024, quarter: 3, insuredThrough: '2024-08-10' }), '40.11');
  assert.equal(fixedCharge({ year: 2024, quarter: 3, insuredFrom: '2024-10-01' }), '0.00', 'not yet in force');
  // The daily values must cover exactly the days in force.
  assert.throws(() => quarterDebit({ ...input, values: { dailyValues: ['1.00'] } }), /1 daily values for 46 insured days/);
});

test('an insurance that ended pays to its last day in force, and owes no tax on an opening value it no longer has', () => {
  // K ended 2024-10-15 (paid out, say): 15 of Q4's 92 days in force.
  const ended: QuarterDebitInput = {
    kind: 'K', year: 2024, quarter: 4, insuredThrough: '2024-10-15', annualCapitalPercent: '0.5',
    values: { averageValue: '100000.00' }, birthDate: '1975-06-01', coverages: [{ type: 'repaymentProtection' }],
    deposits: [{ date: '2024-10-10', amount: '10000.00' }, { date: '2024-11-01', amount: '5000.00' }], yearEndValue: '100000.00',
  };
  const february2025 = quarterDebit(ended);
  assert.equal(february2025.fixedCharge, '14.67'); // 360 × 15 / (4 × 92) = 5 400 / 368 = 14.6739… → 14.67
  assert.equal(february2025.capitalCharge, '20.49'); // 100 000.00 × 15 × 0.5 % / 366 = 7 500 / 366 = 20.4918… → 20.49
  assert.equal(february2025.riskPremium, '4.89'); // 100 000 / 1 000 × 0.10 × 3 × 15 / 92 = 450 / 92 = 4.8913… → 4.89
  // Only the deposit while in force: 10 000.00 × 1.086 % / 2 = 54.30 (the one of 1 November is not taxed).
  assert.equal(february2025.yieldTaxOnDeposits, '54.30');
  assert.equal(february2025.yieldTaxOnOpeningValue, '0.00', 'not in force on 1 January 2025');
  assert.equal(february2025.total, '94.35'); // 14.67 + 20.49 + 4.89 + 54.30
  // Ended on 31 December: the whole quarter is charged, still no opening-value tax.
  const yearEnd = quarterDebit({ ...ended, insuredThrough: '2024-12-31', deposits: [] });
  assert.equal(yearEnd.fixedCharge, '90.00');
  assert.equal(yearEnd.yieldTaxOnOpeningValue, '0.00');
  // In force on 1 January (ended that day or later): taxed on the opening value, 100 000.00 × 0.888 % = 888.00.
  assert.equal(quarterDebit({ ...ended, insuredThrough: '2025-01-01', deposits: [] }).yieldTaxOnOpeningValue, '888.00');
  // Paid out 2024-06-20: Q2 to that day (81 of 91 days), nothing from Q3.
  const q2 = { kind: 'P', annualCapitalPercent: '0.4', values: { averageValue: '100000.00' }, birthDate: '1975-06-01', coverages: [], deposits: [] } as const;
  const june = quarterDebit({ ...q2, year: 2024, quarter: 2, insuredThrough: '2024-06-20' });
  assert.equal(june.fixedCharge, '80.11'); // 360 × 81 / (4 × 91) = 29 160 / 364 = 80.1098… → 80.11
  assert.equal(june.capitalCharge, '88.52'); // 100 000.00 × 81 × 0.4 % / 366 = 32 400 / 366 = 88.5245… → 88.52
  const september = quarterDebit({ ...q2, year: 2024, quarter: 3, insuredThrough: '2024-06-20', values: { dailyValues: [] } });
  assert.equal(september.total, '0.00');
});

test('a tax year without a rate holds that part of the tax back, naming the rate missing; the charges are taken all the same', () => {
  const base: QuarterDebitInput = {
    kind: 'P', year: 2024, quarter: 4, annualCapitalPercent: '0.4', values: { averageValue: '100000.00' },
    birthDate: '1970-01-01', coverages: [], deposits: [], yearEndValue: '100000.00',
  };
  // The February 2025 run needs the P/T rate for 2025, which is not in the table: the tax on the
  // opening value is held back. Fixed 90.00; capital 100 000.00 × 92 × 0.4 % / 366 = 36 800 / 366 = 100.5464… → 100.55.
  const february2025 = quarterDebit(base);
  assert.deepEqual([february2025.fixedCharge, february2025.capitalCharge, february2025.yieldTax, february2025.total], ['90.00', '100.55', '0.00', '190.55']);
  assert.deepEqual(february2025.heldYieldTax, [{
    kind: 'P', basis: 'OpeningValue', taxYear: 2025, base: '100000.00', halfBase: false,
    reason: 'No yield tax rate for P/T in tax year 2025 (rates are known for 2020, 2021, 2022, 2023, 2024): add the year under charges.yieldTaxRates in the configuration once its statslåneränta is set.',
  }]);
  // Set later, the rate takes from the held levy exactly what the run would have taken: 100 000.00 × 0.300 % = 300.00.
  const rates = withConfiguredRates({ 2025: { pt: '0.300' }, 2027: { k: '1.200' } });
  assert.deepEqual(levyYieldTax(february2025.heldYieldTax[0]!, rates), { amount: '300.00', rateConfirmed: true });
  assert.equal(quarterDebit({ ...base, yieldTaxRates: rates }).yieldTaxOnOpeningValue, '300.00');
  assert.deepEqual(quarterDebit({ ...base, yieldTaxRates: rates }).heldYieldTax, []);
  // K deposits of Q3 2027 (second half: at half) without a 2027 K rate: held with their sum.
  const k: QuarterDebitInput = { ...base, kind: 'K', year: 2027, quarter: 3, yearEndValue: undefined, deposits: [{ date: '2027-08-01', amount: '3000.00' }, { date: '2027-09-30', amount: '1000.50' }] };
  const held = quarterDebit(k).heldYieldTax;
  assert.deepEqual(held.map(({ reason: _reason, ...levy }) => levy), [{ kind: 'K', basis: 'Deposits', taxYear: 2027, base: '4000.5', halfBase: true }]);
  assert.match(held[0]!.reason, /^No yield tax rate for K in tax year 2027 \(rates are known for 2020, 2021, 2022, 2023, 2024, 2025, 2026\)/);
  // 4 000.50 × 1.200 % / 2 = 24.003 → 24.00, as the run with the rate takes it.
  assert.equal(levyYieldTax(held[0]!, rates)?.amount, '24.00');
  assert.equal(quarterDebit({ ...k, yieldTaxRates: rates }).yieldTaxOnDeposits, '24.00');
  // Nothing to tax needs no rate: no deposits, an opening value of nothing.
  assert.deepEqual(quarterDebit({ ...k, deposits: [] }).heldYieldTax, []);
  assert.deepEqual(quarterDebit({ ...base, yearEndValue: '0' }).heldYieldTax, []);
  // P and T owe nothing on deposits, so the other 2025 runs need no rate and go through.
  assert.equal(quarterDebit({ ...base, year: 2025, quarter: 1, yearEndValue: undefined }).yieldTax, '0.00');
  // A year's whole tax (not a debit run's part) still refuses a year without its rate.
  assert.throws(() => yieldTax({ kind: 'K', year: 2027, openingValue: '1.00', deposits: [] }), /No yield tax rate for K in tax year 2027/);
  // An unconfirmed rate is used but flagged: P/T 2022, taken by the February 2022 run (Q4 2021).
  const february2022 = quarterDebit({ ...base, year: 2021 });
  assert.equal(february2022.yieldTaxOnOpeningValue, '75.00'); // 100 000.00 × 0.075 %
  assert.equal(february2022.yieldTaxRateConfirmed, false);
});

test('repayment protection ends the day before payout begins: its premium is for the days before only', () => {
  // Q4 2026, 92 days; born 1970-01-01: 56 on 2026-10-01, band 50–59 (0.25 a month per 1 000).
  const period = { year: 2026, quarter: 4 } as const;
  const facts = { period, birthDate: '1970-01-01', values: { averageValue: '100000.00' } } as const;
  // The whole quarter: 100 000.00 / 1 000 × 0.25 × 3 = 75.00.
  assert.equal(riskPremium([{ type: 'repaymentProtection' }], facts).total, '75.00');
  // Payout begins 1 November: protected 1–31 October, 31 of 92 days: 100 000.00 × 31 × 0.25 × 3 / (1 000 × 92) = 25.2717… → 25.27.
  assert.equal(riskPremium([{ type: 'repaymentProtection', through: '2026-10-31' }], facts).total, '25.27');
  // Only the values of the protected days count: 31 days at 100 000.00, then 61 at 300 000.00.
  const daily = { ...facts, values: { dailyValues: [...Array<string>(31).fill('100000.00'), ...Array<string>(61).fill('300000.00')] } };
  assert.equal(riskPremium([{ type: 'repaymentProtection', through: '2026-10-31' }], daily).total, '25.27');
  // Payout began before the quarter: nothing; after it: the whole quarter. A premium waiver is not cut.
  const before = riskPremium([{ type: 'repaymentProtection', through: '2026-09-30' }, { type: 'premiumWaiver', premiums: '3000.00' }], facts);
  assert.deepEqual(before.byCoverage, [{ type: 'repaymentProtection', amount: '0.00' }, { type: 'premiumWaiver', amount: '105.00' }]);
  assert.equal(riskPremium([{ type: 'repaymentProtection', through: '2027-01-31' }], facts).total, '75.00');
  // An insurance in force from 15 October: 15–31 October, 17 days: 100 000.00 × 17 × 0.75 / 92 000 = 13.8586… → 13.86.
  assert.equal(riskPremium([{ type: 'repaymentProtection', through: '2026-10-31' }], { ...facts, period: { ...period, insuredFrom: '2026-10-15' } }).total, '13.86');
});

test('a zero value owes the fixed charge and nothing else', () => {
  const debit = quarterDebit({
    kind: 'K', year: 2024, quarter: 4, annualCapitalPercent: '0.6', values: { averageValue: '0' },
    birthDate: '1950-06-01', coverages: [{ type: 'repaymentProtection' }], deposits: [], yearEndValue: '0.00',
  });
  assert.deepEqual(
    [debit.fixedCharge, debit.capitalCharge, debit.riskPremium, debit.yieldTax, debit.total],
    ['90.00', '0.00', '0.00', '0.00', '90.00'],
  );
});

test('rounding is half up, once, at the end of each charge', () => {
  assert.equal(fixedCharge({ year: 2024, quarter: 2 }, { annualFixedCharge: '360.02' }), '90.01'); // 90.005 → 90.01 (half even would give 90.00)
  // 3 650.00 × 0.1 % × 5 / 365 = 0.05 exactly; both forms of the values agree.
  assert.equal(capitalCharge({ annualPercent: '0.1', year: 2023, averageValue: '3650.00', days: 5 }), '0.05');
  assert.equal(capitalCharge({ annualPercent: '0.1', year: 2023, dailyValues: Array<string>(5).fill('3650.00') }), '0.05');
});

test('malformed input is refused, not guessed at', () => {
  const k: QuarterDebitInput = { kind: 'K', year: 2024, quarter: 1, annualCapitalPercent: '0.6', values: { averageValue: '1.00' }, birthDate: '1970-01-01', coverages: [], deposits: [] };
  assert.throws(() => quarterDebit({ ...k, deposits: [{ date: '2024-04-01', amount: '1.00' }] }), /deposits\[0\] on 2024-04-01 is outside Q1 2024/);
  assert.throws(() => quarterDebit({ ...k, quarter: 4 }), /yearEndValue is required for quarter 4/);
  assert.throws(() => quarterDebit({ ...k, yearEndValue: '1.00' }), /refused for the others/);
  assert.throws(() => quarterDebit({ ...k, values: { averageValue: '1e6' } }), /averageValue must be a non-negative decimal string/);
  assert.throws(() => yieldTax({ kind: 'K', year: 2024, openingValue: '0', deposits: [{ date: '2024-13-01', amount: '1.00' }] }), /not a calendar date/);
});
