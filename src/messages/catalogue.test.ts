import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Catalogue } from './catalogue.ts';

test('a counterparty may be allowed whole families or single types; anything else is named', () => {
  const catalogue = new Catalogue();
  assert.deepEqual([...catalogue.expandAllowed(['plan-administration'])].sort(), ['ChangeFee', 'EmploymentEnded', 'SalaryAdjustment']);
  assert.deepEqual([...catalogue.expandAllowed(['ChangeFee'])], ['ChangeFee']);
  assert.deepEqual([...catalogue.expandAllowed(['custodian-reporting'])], [], 'the custodian family has no types yet');
  assert.throws(() => catalogue.expandAllowed(['ChangeFees']), /"ChangeFees" is neither a document type \(ChangeFee, SalaryAdjustment, EmploymentEnded\) nor a family/);
});
