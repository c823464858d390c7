/**
 * The income base amount (inkomstbasbelopp) per year, in SEK: the government sets it
 * each autumn for the next year. Occupational pension plans cap the salary a premium
 * percent applies to at 7.5 income base amounts a year; a category with a higher
 * percent above the cap needs the year's figure. Data, not code: a new year is a new row.
 *
 * Sources: foretagarna.se "Prisbasbeloppet och inkomstbasbeloppet" (2024 76 200,
 * 2025 80 600); avtalat.se "Basbelopp och premier för 2026" and bokio.se (2026 83 400).
 * A year without its figure is refused, not guessed.
 */
export const INCOME_BASE_AMOUNTS: Readonly<Record<number, number>> = {
  2024: 76_200,
  2025: 80_600,
  2026: 83_400,
};

/** How many income base amounts a year the lower premium percent applies up to. */
export const SALARY_CAP_INCOME_BASE_AMOUNTS = '7.5';

/** The year's income base amount in SEK; undefined when the gateway does not know it. */
export function incomeBaseAmount(year: number, table: Readonly<Record<number, number>> = INCOME_BASE_AMOUNTS): number | undefined {
  return table[year];
}
