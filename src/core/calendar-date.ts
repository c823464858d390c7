/**
 * Calendar dates as ISO strings (YYYY-MM-DD). They compare correctly as strings and
 * never carry a time zone, which is what an effective date is.
 */
export type IsoDate = string;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

export function isIsoDate(value: string): value is IsoDate {
  return ISO_DATE.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));
}

export function addDays(date: IsoDate, days: number): IsoDate {
  const time = Date.parse(`${date}T00:00:00Z`) + days * 86_400_000;
  return new Date(time).toISOString().slice(0, 10);
}

export function daysBetween(from: IsoDate, to: IsoDate): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** Today's date in Europe/Stockholm, where the insurer's business day is. */
export function stockholmDate(instant: Date): IsoDate {
  // Asked for every document of a batch and every REST request: the last answer is kept
  // for its minute. Stockholm's offsets are whole hours, so a date changes only on a
  // minute's boundary, never within one.
  const minute = Math.floor(instant.getTime() / 60_000);
  if (minute !== lastStockholm.minute) lastStockholm = { minute, date: STOCKHOLM_DATE.format(instant) };
  return lastStockholm.date;
}

let lastStockholm = { minute: NaN, date: '' };

// Building a formatter costs far more than using one: build it once.
const STOCKHOLM_DATE = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Stockholm', year: 'numeric', month: '2-digit', day: '2-digit' });
