/**
 * Risk premium rates of the demo products. EXAMPLES, not any insurer's tariff: they
 * are shaped like one (cost rising with age, waiver a share of the premium) so the
 * engine and its tests have realistic figures, and a real product passes its own
 * rates to `riskPremium` / `quarterDebit`.
 *
 * One table serves all kinds. A real capital insurance tariff would likely be far
 * lower: K pays 101 % of the custody value on death, so the insurer's own risk is the
 * extra 1 %, while for P and T the whole value leaves the collective. Pass a per-kind
 * table when the products get real tariffs.
 */

/** A monthly rate that applies from an age (in completed years) until the next band's. */
export interface AgeBand {
  readonly fromAge: number;
  /** SEK a month per 1 000 SEK of capital. */
  readonly monthlyPerThousand: string;
}

export interface RiskPremiumRates {
  /**
   * Repayment protection (återbetalningsskydd): its cost depends on capital and age.
   * Bands in rising `fromAge`, the first from age 0.
   */
  readonly repaymentProtection: readonly AgeBand[];
  /** Premium waiver (premiebefrielse): percent of the premiums it would pay. */
  readonly premiumWaiverPercent: string;
}

export const DEMO_RISK_PREMIUM_RATES: RiskPremiumRates = Object.freeze({
  repaymentProtection: Object.freeze([
    { fromAge: 0, monthlyPerThousand: '0.03' },
    { fromAge: 30, monthlyPerThousand: '0.05' },
    { fromAge: 40, monthlyPerThousand: '0.10' },
    { fromAge: 50, monthlyPerThousand: '0.25' },
    { fromAge: 60, monthlyPerThousand: '0.50' },
    { fromAge: 65, monthlyPerThousand: '0.85' },
    { fromAge: 70, monthlyPerThousand: '1.60' },
    { fromAge: 80, monthlyPerThousand: '4.00' },
  ]),
  premiumWaiverPercent: '3.5',
});
