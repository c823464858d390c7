/**
 * Yield tax (avkastningsskatt) as effective rates: percent of the tax base, per tax
 * year, per kind of product. Data, not code: a new year is a new row (or the insurer's
 * own figure in `charges.yieldTaxRates`), added once the year's government borrowing
 * rate (statslåneränta, SLR) is set.
 *
 * The rules and every figure below, each with its public source, are in docs/domain.md
 * ("Yield tax"):
 * - P and T: 15 % × the average SLR of the year before, floor 0.5 % → at least 0.075.
 * - K: 30 % × (SLR at 30 November of the year before + 1 percentage point), floor
 *   1.25 % → at least 0.375.
 *
 * `confirmed` is false exactly where no public source we could read gives the figure
 * (P/T 2022: the 2021 average SLR was not found, though its month-ends put it below the
 * floor). The engine uses such a figure and says so in the run's log.
 *
 * Rows are keyed by the tax year: the year whose 1 January value is taxed. A
 * specification that speaks of "the rate for year 2022" meaning the 2022 average SLR
 * is speaking of our 2023 row.
 *
 * P/T 2025 and 2026 are left out on purpose: they need the average SLR of 2024 and
 * 2025, which no source we could read gives. (The K figures use the SLR at 30 November,
 * a different number.) The engine refuses a tax year without its rate rather than
 * guess: the debit run holds the tax line back until the rate is configured.
 */
export interface YieldTaxRate {
  /** Percent of the base, e.g. '0.372' for 0.372 %. */
  readonly percent: string;
  /** False when no public source confirms the figure: the engine uses it and says so. */
  readonly confirmed: boolean;
  /** How the figure follows from the rule, so a reviewer can check it. */
  readonly basis: string;
}

export interface YieldTaxYear {
  /** Private (P) and occupational (T) pension insurance. */
  readonly pt?: YieldTaxRate;
  /** Capital insurance (K). */
  readonly k?: YieldTaxRate;
}

export type YieldTaxRateTable = Readonly<Record<number, YieldTaxYear>>;

/**
 * The built-in table with the insurer's own figures (`charges.yieldTaxRates` in the
 * configuration) laid over it: a configured year's P/T or K rate replaces or adds that
 * figure, marked confirmed (the insurer stands behind it), the other kind keeps the
 * built-in one. The way a new year's rate reaches the debit runs without a release.
 */
export function withConfiguredRates(configured: Readonly<Record<string, { readonly pt?: string | undefined; readonly k?: string | undefined }>>, base: YieldTaxRateTable = YIELD_TAX_RATES): YieldTaxRateTable {
  const table: Record<number, YieldTaxYear> = { ...base };
  for (const [year, rates] of Object.entries(configured)) {
    const row = { ...table[Number(year)] };
    const set = (percent: string) => ({ percent, confirmed: true, basis: 'set in the configuration (charges.yieldTaxRates)' });
    if (rates.pt !== undefined) row.pt = set(rates.pt);
    if (rates.k !== undefined) row.k = set(rates.k);
    table[Number(year)] = row;
  }
  return Object.freeze(table);
}

export const YIELD_TAX_RATES: YieldTaxRateTable = Object.freeze({
  2020: {
    pt: { percent: '0.075', confirmed: true, basis: 'floor: average SLR 2019 0.03 % < 0.5 %; 15 % × 0.5 %' },
    k: { percent: '0.375', confirmed: true, basis: 'floor: SLR 30 Nov 2019 −0.09 % + 1 = 0.91 % < 1.25 %; 30 % × 1.25 %' },
  },
  2021: {
    pt: { percent: '0.075', confirmed: true, basis: 'floor: average SLR 2020 below 0.5 % (negative most of the year); 15 % × 0.5 %' },
    // The floor: the 30 November 2020 SLR (−0.10 %) + 1 point is below 1.25 % (docs/domain.md).
    k: { percent: '0.375', confirmed: true, basis: 'floor: SLR 30 Nov 2020 −0.10 % + 1 = 0.90 % < 1.25 %; 30 % × 1.25 %' },
  },
  2022: {
    // Unconfirmed. The 2021 month-ends (−0.03 %–0.28 %) make an average at or
    // above 0.5 % all but impossible, but the average itself we have not seen.
    pt: { percent: '0.075', confirmed: false, basis: 'floor assumed: average SLR 2021 not found; month-ends 2021 all < 0.5 %' },
    k: { percent: '0.375', confirmed: true, basis: 'floor: SLR 30 Nov 2021 0.23 % + 1 = 1.23 % < 1.25 %; 30 % × 1.25 %' },
  },
  2023: {
    pt: { percent: '0.219', confirmed: true, basis: '15 % × average SLR 2022 1.46 %' },
    k: { percent: '0.882', confirmed: true, basis: '30 % × (SLR 30 Nov 2022 1.94 % + 1)' },
  },
  2024: {
    pt: { percent: '0.372', confirmed: true, basis: '15 % × average SLR 2023 2.48 %' },
    k: { percent: '1.086', confirmed: true, basis: '30 % × (SLR 30 Nov 2023 2.62 % + 1)' },
  },
  2025: {
    k: { percent: '0.888', confirmed: true, basis: '30 % × (SLR 30 Nov 2024 1.96 % + 1)' },
  },
  2026: {
    k: { percent: '1.065', confirmed: true, basis: '30 % × (SLR 30 Nov 2025 2.55 % + 1)' },
  },
} satisfies YieldTaxRateTable);
