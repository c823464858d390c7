import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { applicationSignBy, insuranceApplicationSignText, isPastSignBy, planApplicationSignText } from './application-signing.rules.ts';

test('the last day to sign is the day of submission plus the days given; the day after, it has passed', () => {
  assert.equal(applicationSignBy('2026-11-22', 30), '2026-12-22');
  assert.equal(applicationSignBy('2026-12-31', 1), '2027-01-01');
  assert.deepEqual([isPastSignBy('2026-12-22', '2026-12-22'), isPastSignBy('2026-12-22', '2026-12-23')], [false, true]);
});

test('an insurance application is signed over its product, policyholder, insured, premiums and coverages, in Swedish', () => {
  assert.equal(insuranceApplicationSignText({
    applicationId: 'IA-1', productId: 'PPF-DEPA', productName: 'Privat pension Depå', policyholder: '5561234567', insured: '198506152381',
    premium: { monthly: '1250.5' }, coverages: { repaymentProtection: false, premiumWaiver: true },
  }), [
    '# Ansökan om depåförsäkring', '', 'Ansökan IA-1 om **Privat pension Depå** (PPF-DEPA).', '',
    '- Försäkringstagare: 556123-4567', '- Försäkrad: 19850615-2381', '- Månadspremie: **1 250,50 kr**', '- Återbetalningsskydd: nej', '- Premiebefrielse: ja',
  ].join('\n'));
});

test("a plan is signed over the employer, the product, the number of employees and each category's rule; names lose their markup", () => {
  assert.equal(planApplicationSignText({
    applicationId: 'PA-1', productId: 'TJP-DEPA', productName: 'Tjänstepension Depå', employer: { organisationNumber: '5569000127', name: '# Bolaget *AB* + _co_' },
    employees: 12, categories: [{ code: 'ARB', name: 'Arbetare **alla**', premium: { percentOfSalary: '4.5' } }],
  }), [
    '# Ansökan om tjänstepension', '', 'Ansökan PA-1: **Bolaget AB co** (556900-0127)', 'tecknar **Tjänstepension Depå** (TJP-DEPA) för **12 anställda**.', '',
    '## Kategorier', '- ARB Arbetare alla: 4,5 % av månadslönen',
  ].join('\n'));
});
