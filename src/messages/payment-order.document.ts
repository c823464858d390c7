import type { IsoDate } from '../core/calendar-date.ts';
import { sumOre } from '../core/charges/money.ts';
import { element } from './xml-writer.ts';

/**
 * Writes a payment order of the insurer's own: an ISO 20022 customer credit transfer
 * initiation, pain.001.001.03 (schemas/iso20022/pain.001.001.03.xsd), the file Swedish
 * banks take for a batch of payments from a customer's account. Any payment the insurer
 * makes from its own funds can be written with it — the 1 % of a death benefit today
 * (src/calendar/death-benefit-payments.ts), advisors' commissions later. Pure string
 * building in the schema's order; the caller chooses ids and amounts.
 *
 * One group header (MsgId, CreDtTm, NbOfTxs, CtrlSum = the sum of the amounts, the
 * initiating party) and one payment information block (PmtMtd TRF, the requested
 * execution date, the insurer as debtor with its IBAN and its bank's BIC), holding one
 * credit transfer per payment (EndToEndId, the amount in SEK, the creditor's name and
 * IBAN, an unstructured remittance text).
 *
 * Invariants, checked here because a bank refuses the whole file otherwise: at least one
 * payment; each amount a positive decimal with at most two decimals (öre); ids within
 * the standard's 35 characters, names and texts within 140; end-to-end ids unique in
 * the file. The same input gives the same bytes.
 */

export const PAIN_001_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.03';

export interface CreditTransfer {
  /** The payment's reference from end to end, unique per payment and never reused (the creditor's bank shows it). */
  readonly endToEndId: string;
  /** SEK, a positive decimal string with at most two decimals. */
  readonly amount: string;
  readonly creditorName: string;
  readonly creditorIban: string;
  /** The text the creditor sees on the payment (Ustrd). */
  readonly remittance: string;
}

export interface PaymentOrderInput {
  /** GrpHdr/MsgId: unique per file and never reused; PmtInfId is made from it. */
  readonly messageId: string;
  readonly createdAt: Date;
  /** The party that sends the file: the insurer, by name and organisation number. */
  readonly initiatingParty: { readonly name: string; readonly organisationNumber: string };
  /** The account paid from: the insurer's own, with its bank's BIC. */
  readonly debtor: { readonly name: string; readonly iban: string; readonly bic: string };
  /** The banking day the bank is to pay on. */
  readonly requestedExecutionDate: IsoDate;
  readonly payments: readonly CreditTransfer[];
}

/** The sum of the payments' amounts, as GrpHdr/CtrlSum states it. */
export function controlSum(payments: readonly CreditTransfer[]): string {
  return sumOre(payments.map((payment) => payment.amount));
}

export function paymentOrderXml(input: PaymentOrderInput): string {
  checkInput(input);
  const sum = controlSum(input.payments);
  const count = String(input.payments.length);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n', `<Document xmlns="${PAIN_001_NAMESPACE}">\n`, '  <CstmrCdtTrfInitn>\n'];
  out.push(
    '    <GrpHdr>\n',
    element('MsgId', input.messageId, '      '),
    element('CreDtTm', input.createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z'), '      '),
    element('NbOfTxs', count, '      '),
    element('CtrlSum', sum, '      '),
    '      <InitgPty>\n', element('Nm', input.initiatingParty.name, '        '),
    '        <Id><OrgId><Othr>\n', element('Id', input.initiatingParty.organisationNumber, '          '), '        </Othr></OrgId></Id>\n',
    '      </InitgPty>\n',
    '    </GrpHdr>\n',
  );
  out.push(
    '    <PmtInf>\n',
    element('PmtInfId', `${input.messageId}-1`, '      '),
    element('PmtMtd', 'TRF', '      '),
    element('NbOfTxs', count, '      '),
    element('CtrlSum', sum, '      '),
    element('ReqdExctnDt', input.requestedExecutionDate, '      '),
    '      <Dbtr>\n', element('Nm', input.debtor.name, '        '), '      </Dbtr>\n',
    '      <DbtrAcct><Id>\n', element('IBAN', input.debtor.iban, '        '), '      </Id></DbtrAcct>\n',
    '      <DbtrAgt><FinInstnId>\n', element('BIC', input.debtor.bic, '        '), '      </FinInstnId></DbtrAgt>\n',
  );
  for (const payment of input.payments) {
    out.push(
      '      <CdtTrfTxInf>\n',
      '        <PmtId>\n', element('EndToEndId', payment.endToEndId, '          '), '        </PmtId>\n',
      `        <Amt><InstdAmt Ccy="SEK">${payment.amount}</InstdAmt></Amt>\n`,
      '        <Cdtr>\n', element('Nm', payment.creditorName, '          '), '        </Cdtr>\n',
      '        <CdtrAcct><Id>\n', element('IBAN', payment.creditorIban, '          '), '        </Id></CdtrAcct>\n',
      '        <RmtInf>\n', element('Ustrd', payment.remittance, '          '), '        </RmtInf>\n',
      '      </CdtTrfTxInf>\n',
    );
  }
  out.push('    </PmtInf>\n', '  </CstmrCdtTrfInitn>\n', '</Document>\n');
  return out.join('');
}

const AMOUNT = /^(0|[1-9]\d{0,15})(\.\d{1,2})?$/;
const ZERO = /^0(\.0{1,2})?$/;

function checkInput(input: PaymentOrderInput): void {
  const problems: string[] = [];
  const within = (what: string, value: string, max: number) => {
    if (value.length === 0 || value.length > max) problems.push(`${what}: 1–${max} characters, not ${value.length}`);
  };
  within('messageId', `${input.messageId}-1`, 35);
  within('initiating party name', input.initiatingParty.name, 140);
  within('debtor name', input.debtor.name, 140);
  if (input.payments.length === 0) problems.push('no payment: a payment order holds at least one');
  for (const payment of input.payments) {
    within(`${payment.endToEndId}: endToEndId`, payment.endToEndId, 35);
    within(`${payment.endToEndId}: creditor name`, payment.creditorName, 140);
    within(`${payment.endToEndId}: remittance`, payment.remittance, 140);
    if (!AMOUNT.test(payment.amount) || ZERO.test(payment.amount)) problems.push(`${payment.endToEndId}: amount ${payment.amount} is not a positive SEK amount with at most two decimals`);
  }
  if (new Set(input.payments.map((payment) => payment.endToEndId)).size !== input.payments.length) problems.push('endToEndId: each payment its own');
  if (problems.length > 0) throw new Error(`payment order ${input.messageId}: ${problems.join('; ')}`);
}
