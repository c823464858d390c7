import { payoutDeadline, sellOrderDeadline } from '../core/banking-calendar.ts';
import type { IsoDate } from '../core/calendar-date.ts';
import { requireYearMonth, type YearMonth } from '../core/payout-plan.ts';
import type { StoredLine } from '../ledger/custody/debit-runs.repository.ts';
import type { DueDeathBenefit } from '../ledger/plan/death-benefits.repository.ts';
import type { DebitAccountsAccount } from '../messages/debit-accounts.document.ts';

/**
 * The death benefit of repayment protection in the payout run (payout-run.ts): each
 * benefit recorded with a death (death-benefits.repository.ts) and not ordered yet goes
 * in its custodian's DebitAccounts of the next month's run as one sell order of the
 * whole account and one final payout of it — the custody value paid out once, in full,
 * with the month's deadlines (sell by the 10th, pay by the 22nd). The insurer's 1 % is
 * not in the file: the custodian pays only what the account holds.
 */

/** The month's sell-by and pay-by days, as for every payout of that month. */
export function deathBenefitOrderDays(month: YearMonth): { sellBy: IsoDate; payBy: IsoDate } {
  const { year, month: monthOfYear } = requireYearMonth(month);
  return { sellBy: sellOrderDeadline(year, monthOfYear), payBy: payoutDeadline(year, monthOfYear) };
}

/** The accounts and stored lines of one custodian's death benefits in the month's file. */
export function deathBenefitOrders(benefits: readonly DueDeathBenefit[], month: YearMonth): { accounts: DebitAccountsAccount[]; lines: StoredLine[] } {
  const { sellBy, payBy } = deathBenefitOrderDays(month);
  return {
    accounts: benefits.map((benefit) => ({
      accountNumber: benefit.accountNumber, insuranceNumber: benefit.insuranceNumber, debits: [],
      sellOrders: [{ reason: 'Payout', amount: benefit.custodyValue, sellBy }],
      payout: { amount: benefit.custodyValue, payBy, installment: 1, final: true, toAccount: benefit.beneficiaryAccount },
    })),
    lines: benefits.map((benefit) => ({
      accountNumber: benefit.accountNumber, insuranceNumber: benefit.insuranceNumber, charge: 'SellOrder', basis: 'DeathBenefit',
      amount: benefit.custodyValue, periodFrom: sellBy, periodTo: sellBy,
    })),
  };
}
