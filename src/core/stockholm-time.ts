/**
 * An instant as people at the insurer read it: Stockholm wall-clock time,
 * `YYYY-MM-DD HH:MM:SS`, for the texts the gateway writes for them (mails, pages).
 * Machine answers (JSON, XML) keep ISO 8601 in UTC.
 */
export function stockholmTime(instant: Date): string {
  return STOCKHOLM_TIME.format(instant);
}

// Building a formatter costs far more than using one: build it once.
const STOCKHOLM_TIME = new Intl.DateTimeFormat('sv-SE', {
  timeZone: 'Europe/Stockholm', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
});
