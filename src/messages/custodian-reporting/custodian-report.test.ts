import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { oreOf, toOre } from './custodian-report.ts';

test('oreOf reads every lexical form of a two-decimal amount as toOre does', () => {
  const amounts = ['0', '0.00', '1', '1.5', '1.05', '-1.05', '+7.10', '.5', '-.5', '12.', '00012.30', '-0', '99999999999.99', '-123456789012.34', '5.0'];
  for (const amount of amounts) assert.equal(BigInt(oreOf(amount)), toOre(amount), amount);
});

test('beyond 2^53 öre the number is not exact, and says so', () => {
  assert.equal(Number.isSafeInteger(oreOf('90071992547409.93')), false);
  assert.equal(Number.isSafeInteger(oreOf('90071992547409.91')), true);
});
