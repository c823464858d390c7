import type { IsoDate } from '../core/calendar-date.ts';
import type { DebitLine } from '../core/debit-run.ts';
import { CATALOGUE_NAMESPACE } from './catalogue-namespace.ts';
import { element } from './xml-writer.ts';

/**
 * Writes the DebitAccounts document (schemas/DebitAccounts.xsd): the file a custodian
 * receives for one debit run or payout month. Pure string building: the caller has
 * computed every amount; this only lays them out in schema order.
 *
 * Invariant: the same input gives the same bytes, so a file re-delivered after a
 * failure is the same file.
 */

export type DebitAccountsRun =
  | { readonly kind: 'debit'; readonly year: number; readonly quarter: number; readonly runDate: IsoDate }
  | { readonly kind: 'payout'; readonly month: string };

export interface DebitAccountsAccount {
  readonly accountNumber: string;
  readonly insuranceNumber: string;
  readonly debits: readonly DebitLine[];
  readonly sellOrders: readonly { readonly reason: 'Debit' | 'Payout'; readonly amount: string; readonly sellBy: IsoDate }[];
  readonly payout?: {
    readonly amount: string; readonly payBy: IsoDate; readonly installment: number; readonly final: boolean;
    /** The bank account the custodian pays to: clearing number and account number, digits only. */
    readonly toAccount: string;
  };
}

export interface DebitAccountsInput {
  readonly messageId: string;
  readonly createdAt: Date;
  readonly insurerOrganisationNumber: string;
  readonly custodianOrganisationNumber: string;
  readonly run: DebitAccountsRun;
  readonly accounts: readonly DebitAccountsAccount[];
}

export const DEBIT_ACCOUNTS = 'DebitAccounts';

export function debitAccountsXml(input: DebitAccountsInput): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n', `<DebitAccounts xmlns="${CATALOGUE_NAMESPACE}">\n`, '  <Header>\n'];
  out.push(
    element('MessageId', input.messageId, '    '),
    element('CreatedAt', input.createdAt.toISOString(), '    '),
    element('InsurerOrganisationNumber', input.insurerOrganisationNumber, '    '),
    element('CustodianOrganisationNumber', input.custodianOrganisationNumber, '    '),
  );
  if (input.run.kind === 'debit') {
    out.push('    <DebitRun>\n', element('Year', input.run.year, '      '), element('Quarter', input.run.quarter, '      '), element('RunDate', input.run.runDate, '      '), '    </DebitRun>\n');
  } else {
    out.push(element('PayoutMonth', input.run.month, '    '));
  }
  out.push('  </Header>\n');
  for (const account of input.accounts) {
    out.push('  <Account>\n', element('AccountNumber', account.accountNumber, '    '), element('InsuranceNumber', account.insuranceNumber, '    '));
    for (const line of account.debits) {
      out.push('    <Debit>\n', element('Charge', line.charge, '      '), element('Basis', line.basis, '      '), element('Amount', line.amount, '      '));
      out.push(element('PeriodFrom', line.periodFrom, '      '), element('PeriodTo', line.periodTo, '      '), '    </Debit>\n');
    }
    for (const order of account.sellOrders) {
      out.push('    <SellOrder>\n', element('Reason', order.reason, '      '), element('Amount', order.amount, '      '), element('SellBy', order.sellBy, '      '), '    </SellOrder>\n');
    }
    if (account.payout) {
      const { amount, payBy, installment, final, toAccount } = account.payout;
      out.push('    <Payout>\n', element('Amount', amount, '      '), element('PayBy', payBy, '      '), element('Installment', installment, '      '));
      out.push(element('Final', String(final), '      '), element('ToAccount', toAccount, '      '), '    </Payout>\n');
    }
    out.push('  </Account>\n');
  }
  out.push('</DebitAccounts>\n');
  return out.join('');
}
