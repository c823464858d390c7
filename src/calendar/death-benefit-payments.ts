import { join } from 'node:path';
import type { Logger } from 'pino';
import { parseBankAccount } from '../core/bank-account.ts';
import { bankingDayOnOrAfter } from '../core/banking-calendar.ts';
import type { IsoDate } from '../core/calendar-date.ts';
import { swedishIbanOf } from '../core/swedish-iban.ts';
import { PROJECT_ROOT } from '../config/load-config.ts';
import type { GatewayConfig } from '../config/config.schema.ts';
import type { Sql } from '../ledger/database.ts';
import { markInsurerSharesPaid, unpaidInsurerShares, type UnpaidInsurerShare } from '../ledger/plan/death-benefits.repository.ts';
import { insertPaymentOrder, type PaymentOrderSummary } from '../ledger/custody/payment-orders.repository.ts';
import { controlSum, paymentOrderXml, type CreditTransfer } from '../messages/payment-order.document.ts';
import { PaymentOrderSchema } from '../messages/payment-order.schema.ts';
import { newMessageId } from '../pipeline/message-id.ts';

/**
 * The insurer's 1 % of the death benefits a payout run orders (payout-run.ts): the
 * custodian pays the custody value to the beneficiary's account; the insurer pays 1 % of
 * it from its own account. In the run's transaction, every ordered benefit whose 1 % no
 * payment order pays yet goes in one new ISO 20022 pain.001 file (one credit transfer
 * each, to the beneficiary's IBAN, on the benefit's pay-by day), stored in
 * payment_orders with its bytes for finance staff to download and upload to the bank.
 *
 * Invariants:
 * - a benefit's 1 % is in one file only: the benefits are locked while the run decides
 *   and marked with the file in the same transaction, so a repeated or concurrent run
 *   makes no second file;
 * - a file's MsgId (`PO-` and a ULID) is new and never reused (payment_orders keeps it);
 *   each payment's EndToEndId is `DB-<insurance number>`, once per benefit;
 * - every file is valid against schemas/iso20022/pain.001.001.03.xsd before it is stored;
 *   one that is not (a fault of ours) is not stored: the run goes on, the payments wait
 *   and the error is logged;
 * - without the insurer's account configured (insurerAccount) nothing is made and the
 *   payments wait; the first run after it is set pays them.
 *
 * Nothing is sent: delivery to the bank (a host-to-host channel) would be a step of its
 * own on the stored file, as the deliver stage is for DebitAccounts.
 */

export type InsurerAccount = NonNullable<GatewayConfig['insurerAccount']>;

export interface InsurerPaymentDeps {
  readonly insurerAccount?: InsurerAccount | undefined;
  readonly insurerOrganisationNumber: string;
  readonly log: Logger;
}

/** The payment order made for the ordered benefits' 1 %, or undefined when none is due or it cannot be made. */
export async function orderInsurerShares(
  sql: Sql, deps: InsurerPaymentDeps, run: { readonly runKey: string; readonly runDate: IsoDate; readonly now: Date },
): Promise<PaymentOrderSummary | undefined> {
  const shares = await unpaidInsurerShares(sql);
  if (shares.length === 0) return undefined;
  const account = deps.insurerAccount;
  if (!account) {
    deps.log.warn({ runKey: run.runKey, waiting: shares.map((share) => share.insuranceNumber) },
      "payout run: the insurer's 1 % of death benefits waits: no insurerAccount configured to pay it from");
    return undefined;
  }
  const payable = shares.flatMap((share) => {
    const transfer = creditTransferOf(share);
    if ('problem' in transfer) deps.log.error({ runKey: run.runKey, insuranceNumber: share.insuranceNumber, problem: transfer.problem }, "payout run: the insurer's 1 % cannot be paid to the beneficiary's account");
    return 'problem' in transfer ? [] : [{ share, transfer }];
  });
  if (payable.length === 0) return undefined;
  const paymentOrderId = `PO-${newMessageId()}`;
  const latestPayBy = payable.map(({ share }) => share.payBy).sort().at(-1)!;
  const requestedExecutionDate = bankingDayOnOrAfter(latestPayBy > run.runDate ? latestPayBy : run.runDate);
  const payments = payable.map(({ transfer }) => transfer);
  const body = paymentOrderXml({
    messageId: paymentOrderId, createdAt: run.now, requestedExecutionDate, payments,
    initiatingParty: { name: account.name, organisationNumber: deps.insurerOrganisationNumber },
    debtor: { name: account.name, iban: account.iban, bic: account.bic },
  });
  const errors = validatePaymentOrder(body);
  if (errors.length > 0) {
    deps.log.error({ runKey: run.runKey, paymentOrderId, errors }, 'payout run: the payment order is not valid pain.001.001.03; not stored, its payments wait');
    return undefined;
  }
  const order = {
    paymentOrderId, purpose: 'death-benefit' as const, runKey: run.runKey, createdAt: run.now, requestedExecutionDate,
    transactions: payments.length, controlSum: controlSum(payments), fileName: `${paymentOrderId}.pain.001.001.03.xml`,
  };
  await insertPaymentOrder(sql, { ...order, body });
  await markInsurerSharesPaid(sql, paymentOrderId, payable.map(({ share, transfer }) => ({ insuranceNumber: share.insuranceNumber, endToEndId: transfer.endToEndId })));
  deps.log.info({ runKey: run.runKey, paymentOrderId, transactions: order.transactions, controlSum: order.controlSum }, "payout run: payment order made for the insurer's 1 % of death benefits");
  return { ...order, insuranceNumbers: payable.map(({ share }) => share.insuranceNumber) };
}

/** One benefit's 1 % as a credit transfer to its beneficiary's IBAN, or why it cannot be one. */
function creditTransferOf(share: UnpaidInsurerShare): CreditTransfer | { problem: string } {
  const account = parseBankAccount(share.beneficiaryAccount);
  if (!account.ok) return { problem: account.problem };
  const iban = swedishIbanOf(account.account);
  if (!iban.ok) return { problem: iban.problem };
  return {
    endToEndId: `DB-${share.insuranceNumber}`, amount: share.insurerAmount, creditorName: share.beneficiaryName, creditorIban: iban.iban,
    remittance: `Repayment protection ${share.insuranceNumber}: 1 % of custody value ${share.custodyValue} SEK`,
  };
}

/** Compiles the schema for this one file and frees it again: a payout run makes at most a few files a month. */
function validatePaymentOrder(body: string): readonly { text: string }[] {
  const schema = PaymentOrderSchema.load(PaymentOrderSchema.fileIn(join(PROJECT_ROOT, 'schemas')));
  try {
    return schema.validate(body);
  } finally {
    schema.dispose();
  }
}
