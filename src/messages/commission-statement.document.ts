import type { IsoDate } from '../core/calendar-date.ts';
import type { CommissionFee } from '../core/commission.rules.ts';
import { CATALOGUE_NAMESPACE } from './catalogue-namespace.ts';
import { element } from './xml-writer.ts';

/**
 * Writes the CommissionStatement (schemas/CommissionStatement.xsd): what the insurer pays
 * an advisor firm in one month, fee by fee — the fee as the firm reported it, what the
 * custodian debited and when, and what this payment pays. Pure string building in the
 * schema's order; the same input gives the same bytes, so a statement delivered again is
 * the same file.
 */

export const COMMISSION_STATEMENT = 'CommissionStatement';

export interface CommissionStatementLine {
  readonly insuranceNumber: string;
  readonly commissionFileId: string;
  readonly itemId: string;
  readonly periodFrom: IsoDate;
  readonly periodTo: IsoDate;
  readonly fee: CommissionFee;
  readonly amount: string;
  readonly debitedOn: IsoDate;
  readonly runKey: string;
}

export interface CommissionStatementInput {
  readonly statementId: string;
  readonly createdAt: Date;
  readonly insurerOrganisationNumber: string;
  readonly firmOrganisationNumber: string;
  readonly month: string;
  readonly paymentDate: IsoDate;
  readonly paymentReference: string;
  readonly toAccount: string;
  readonly total: string;
  readonly lines: readonly CommissionStatementLine[];
}

export function commissionStatementXml(input: CommissionStatementInput): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n', `<${COMMISSION_STATEMENT} xmlns="${CATALOGUE_NAMESPACE}">\n`, '  <Header>\n'];
  out.push(
    element('StatementId', input.statementId, '    '),
    element('CreatedAt', input.createdAt.toISOString(), '    '),
    element('InsurerOrganisationNumber', input.insurerOrganisationNumber, '    '),
    element('AdvisorFirmOrganisationNumber', input.firmOrganisationNumber, '    '),
    element('Month', input.month, '    '),
    element('PaymentDate', input.paymentDate, '    '),
    element('PaymentReference', input.paymentReference, '    '),
    element('ToAccount', input.toAccount, '    '),
    element('Total', input.total, '    '),
    '  </Header>\n',
  );
  for (const line of input.lines) {
    out.push(
      '  <Insurance>\n',
      element('InsuranceNumber', line.insuranceNumber, '    '),
      element('CommissionFileId', line.commissionFileId, '    '),
      element('ItemId', line.itemId, '    '),
      element('PeriodFrom', line.periodFrom, '    '),
      element('PeriodTo', line.periodTo, '    '),
      element(line.fee.kind === 'Amount' ? 'FeeAmount' : 'FeePercent', line.fee.kind === 'Amount' ? line.fee.value.replace(/(\.\d\d)0+$/, '$1') : line.fee.value, '    '),
      element('Debited', line.amount, '    '),
      element('DebitedOn', line.debitedOn, '    '),
      element('DebitRun', line.runKey, '    '),
      element('Paid', line.amount, '    '),
      '  </Insurance>\n',
    );
  }
  out.push(`</${COMMISSION_STATEMENT}>\n`);
  return out.join('');
}
