import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { Catalogue } from './catalogue.ts';

/** The sixteen plan-administration documents of the specification. */
const PLAN_ADMINISTRATION = [
  'AddCategories', 'BillingStart', 'BillingStop', 'ChangeCategory', 'ChangeCostCenter', 'ChangeFee', 'EmploymentEnded', 'ExtraPremium',
  'Insurancepurchase', 'PredefinedDistributionPlan', 'PremiumAdjustment', 'PremiumEnded', 'Reallocate', 'SalaryAdjustment', 'Transfer',
  'UpdateAdministrators',
];

test('the plan-administration family holds the sixteen documents of the specification', () => {
  const catalogue = new Catalogue();
  assert.deepEqual([...catalogue.expandAllowed(['plan-administration'])].sort(), PLAN_ADMINISTRATION);
  assert.equal(catalogue.get('Insurancepurchase')?.responseName, 'InsurancePurchaseResponse', "the specification's spelling of the request, ours of the response");
  assert.equal(catalogue.get('Reallocate')?.responseName, 'ReallocateResponse');
});

test('a counterparty may be allowed whole families or single types; anything else is named', () => {
  const catalogue = new Catalogue();
  assert.deepEqual([...catalogue.expandAllowed(['ChangeFee'])], ['ChangeFee']);
  assert.deepEqual([...catalogue.expandAllowed(['insurer-transfer'])], ['TransferLeaflet']);
  assert.deepEqual([...catalogue.expandAllowed(['advisor-reporting'])], ['CommissionFile']);
  assert.deepEqual([...catalogue.expandAllowed(['custodian-reporting'])].sort(), ['CostAndCharges', 'CustodianSwitchConfirmation', 'Holdings', 'Transactions']);
  assert.throws(() => catalogue.expandAllowed(['ChangeFees']), /"ChangeFees" is neither a document type \(ChangeFee, .*\) nor a family \(plan-administration, custodian-reporting, insurer-transfer, advisor-reporting\)/);
});
