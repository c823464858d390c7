import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfig } from './load-config.ts';

test('yield tax rates in the configuration: read per tax year, and a bad one is refused naming the setting', () => {
  const config = parseConfig({ charges: { yieldTaxRates: { 2027: { pt: '0.400', k: '1.1' } } } });
  assert.deepEqual(config.charges.yieldTaxRates, { 2027: { pt: '0.400', k: '1.1' } });
  assert.deepEqual(parseConfig({}).charges.yieldTaxRates, {});
  assert.throws(() => parseConfig({ charges: { yieldTaxRates: { 2027: { pt: '0,4' } } } }), /charges\.yieldTaxRates\.2027\.pt: a percent such as "0\.372"/);
  assert.throws(() => parseConfig({ charges: { yieldTaxRates: { next: { pt: '0.4' } } } }), /charges\.yieldTaxRates\.next: a tax year YYYY/);
});
