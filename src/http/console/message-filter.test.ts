import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { readMessageFilter } from './message-filter.ts';

const context = { counterparties: ['demo-employer'], messageTypes: ['ChangeFee', 'SalaryAdjustment'] };

test('a filter from the URL becomes a store query, keys normalised', () => {
  const { filter, errors } = readMessageFilter({ counterparty: 'demo-employer', type: 'ChangeFee', status: 'dead', from: '2026-11-01', to: '2026-11-22', pnr: '19700101-1233', before: '42' }, context);
  assert.deepEqual(errors, []);
  assert.equal(filter.counterpartyId, 'demo-employer');
  assert.equal(filter.status, 'dead');
  assert.deepEqual(filter.key, { kind: 'personnummer', value: '197001011233' });
  assert.equal(filter.beforeSeq, 42);
  assert.equal(filter.receivedFrom, '2026-11-01');
});

test('bad values are messages, each naming what was given', () => {
  const { errors } = readMessageFilter({ counterparty: 'nobody', status: 'lost', from: '2026-02-30', to: 'yesterday', error: 'NO_SUCH_CODE', before: '-1', pnr: '197001011233', agreement: 'AGR-1' }, context);
  assert.equal(errors.length, 7);
  assert.match(errors.join('\n'), /Counterparty "nobody" is not known/);
  assert.match(errors.join('\n'), /Status "lost"/);
  assert.match(errors.join('\n'), /"2026-02-30" is not a date/);
  assert.match(errors.join('\n'), /"yesterday" is not a date/);
  assert.match(errors.join('\n'), /NO_SUCH_CODE/);
  assert.match(errors.join('\n'), /"before" must be/);
  assert.match(errors.join('\n'), /one of personnummer/);
});
