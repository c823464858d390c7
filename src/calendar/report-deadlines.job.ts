import type { Logger } from 'pino';
import { bankingDayOnOrBefore, bankingDaysBetween, previousBankingDay, reportDeadline } from '../core/banking-calendar.ts';
import { addDays, isIsoDate, stockholmDate, type IsoDate } from '../core/calendar-date.ts';
import { GatewayError } from '../core/gateway-error.ts';
import { REPORT_STATUSES, noticeText, reportStatuses, type ReportKind, type ReportStatus } from '../core/report-deadlines.ts';
import type { MailSender } from '../channels/mail/mail-sender.ts';
import type { Sql } from '../ledger/database.ts';
import { listRecordedDeadlines, lockUnnotifiedReports, markNotified, recordMissingReports, type RecordedReportDeadline } from '../ledger/custody/report-deadlines.repository.ts';
import { annualNoticeText, annualReportStatuses, annualReportWindow, latestClosedAccountYear, type AnnualReportKind } from '../core/annual-report-deadlines.ts';
import { custodiansFirstSeen } from '../ledger/custody/custodians-first-seen.repository.ts';
import { switchReportDays } from '../core/custodian-switch.rules.ts';
import { switchPartiesBetween } from '../ledger/custody/custodian-switches.repository.ts';
import {
  custodiansWithAccountsOpenIn, listRecordedAnnualReports, lockUnnotifiedAnnualReports, markAnnualNotified, recordMissingAnnualReports, type RecordedAnnualReport,
} from '../ledger/custody/annual-report-deadlines.repository.ts';
import type { CalendarJob } from './calendar.scheduler.ts';
import type { GatewayMetrics } from '../observability/gateway-metrics.ts';

/**
 * The custodian report deadline check, a calendar job, and the listing staff read
 * (API and CLI).
 *
 * The check runs each banking day at 08:31 and 10:00 Stockholm time (and catches up
 * at start): for the due days it covers it records a `missing` row for every expected
 * report that has not arrived — expected only of a custodian the gateway knew before
 * the deadline passed (`custodians_first_seen`, recorded when a worker first starts with
 * it configured): a new installation is not told about days before it existed — then mails the operations address one notice listing
 * every late or missing report of those days that no notice has listed yet, and marks
 * them notified in the same transaction — a report is never mailed twice. Without
 * mail settings the outcomes are still recorded, and mailed by the first check after
 * mail is configured.
 *
 * The same runs check the yearly CostAndCharges (due 1 March – 30 April for the year
 * before) of the latest account year whose window has closed, the same way: expected
 * from every custodian with a custody account open during that year, recorded per
 * custodian and year, and mailed in a notice of their own, once.
 */

/** Stockholm wall-clock times of the checks; each is a period of the calendar job. */
export const DEADLINE_CHECK_TIMES = ['08:31', '10:00'] as const;
/** The same times as cron patterns; weekends are skipped here, holidays by the banking calendar. */
export const DEADLINE_CHECK_PATTERNS = ['31 8 * * 1-5', '0 10 * * 1-5'] as const;
export const DEADLINE_CHECK_JOB = 'report-deadlines';
/** How many banking days back a check missed while the gateway was down is still made at start. */
export const DEFAULT_CATCH_UP_BANKING_DAYS = 10;

export interface DeadlineCheckDeps {
  /** Counterparties that must report daily: role custodian, not opted out. */
  readonly custodians: readonly string[];
  /** Without it (or without `operationsAddress`) outcomes are recorded but not mailed. */
  readonly mailSender: MailSender | undefined;
  readonly operationsAddress: string | undefined;
  readonly log: Logger;
  readonly catchUpBankingDays?: number;
  /** Where the missing reports each check records are counted. */
  readonly metrics?: Pick<GatewayMetrics, 'reportDeadlinesMissed'> | undefined;
}

export interface DeadlineCheckResult {
  /** Missing rows written by this check. */
  readonly recordedMissing: number;
  /** The reports the notice listed (empty when none was sent). */
  readonly notified: readonly RecordedReportDeadline[];
}

/** The custodians expected to report: every configured counterparty with role custodian and `reports` not false. */
export function expectedCustodians(counterparties: readonly { id: string; role: string; reports?: boolean }[]): string[] {
  return counterparties.filter((c) => c.role === 'custodian' && c.reports !== false).map((c) => c.id);
}

/** The latest banking day whose 08:30 deadline has passed at `now`. */
export function latestPassedDueDay(now: Date): IsoDate {
  const day = bankingDayOnOrBefore(stockholmDate(now));
  return now.getTime() > reportDeadline(day).getTime() ? day : previousBankingDay(day);
}

/** Deadline checks that have already said, at warn level, that no notice can be mailed. */
const warnedWithoutMail = new WeakSet<DeadlineCheckDeps>();

/**
 * Checks the given due days at `now`, inside the caller's transaction: records what is
 * missing, and mails one notice of the late and missing reports not yet notified.
 * `noticeId` makes a repeated notice (after a crash before commit) carry the same Message-ID.
 */
export async function checkReportDeadlines(
  tx: Sql,
  deps: DeadlineCheckDeps,
  dueDays: readonly IsoDate[],
  now: Date,
  noticeId?: string,
): Promise<DeadlineCheckResult> {
  const first = dueDays[0];
  const last = dueDays.at(-1);
  if (first === undefined || last === undefined) return { recordedMissing: 0, notified: [] };
  const owes = await custodiansFirstSeen(tx);
  // The two custodians of a switch owe their reports while it runs, even one not reporting daily otherwise (custodian-switch.rules.ts).
  const switching = switchReportDays(await switchPartiesBetween(tx, first, last), dueDays, new Set(deps.custodians));
  const missing = [
    ...reportStatuses({ custodians: deps.custodians, dueDays, arrivals: [], now }),
    ...[...switching].flatMap(([custodianId, days]) => reportStatuses({ custodians: [custodianId], dueDays: days, arrivals: [], now })),
  ].filter((r) => r.status === 'missing' && owes(r.custodianId, r.deadline));
  const recordedMissing = await recordMissingReports(tx, missing, now);
  const unnotified = await lockUnnotifiedReports(tx, first, last);
  if (!(await mailNotice(deps, unnotified.length, () => noticeText(unnotified, now), 'report-deadlines', noticeId))) return { recordedMissing, notified: [] };
  await markNotified(tx, unnotified, now);
  return { recordedMissing, notified: unnotified };
}

/**
 * Checks the yearly reports (CostAndCharges) of account year `year` at `now`, inside the
 * caller's transaction, as `checkReportDeadlines` does the daily ones: once the window
 * has closed (the end of 30 April of the next year) it records the report of every
 * custodian with a custody account open during the year as missing unless it arrived,
 * then mails one notice of the late and missing yearly reports not yet notified.
 */
export async function checkAnnualReportDeadlines(tx: Sql, deps: DeadlineCheckDeps, year: number, now: Date, noticeId?: string): Promise<AnnualCheckResult> {
  const owes = await custodiansFirstSeen(tx);
  const deadline = annualReportWindow(year).closes;
  const custodians = (await custodiansWithAccountsOpenIn(tx, year)).filter((custodianId) => owes(custodianId, deadline));
  const missing = annualReportStatuses({ custodians, year, arrivals: [], now }).filter((r) => r.status === 'missing');
  const recordedMissing = await recordMissingAnnualReports(tx, missing, now);
  const unnotified = await lockUnnotifiedAnnualReports(tx, year);
  if (!(await mailNotice(deps, unnotified.length, () => annualNoticeText(unnotified, now), 'annual-report-deadlines', noticeId))) return { recordedMissing, notified: [] };
  await markAnnualNotified(tx, unnotified, now);
  return { recordedMissing, notified: unnotified };
}

export interface AnnualCheckResult {
  readonly recordedMissing: number;
  readonly notified: readonly RecordedAnnualReport[];
}

/**
 * Mails the operations address one notice of `count` late or missing reports; false when
 * there is nothing to tell or no one to tell it to (said in the log instead). `noticeId`
 * makes a repeated notice carry the same Message-ID.
 */
async function mailNotice(
  deps: DeadlineCheckDeps,
  count: number,
  notice: () => { subject: string; text: string },
  idPrefix: string,
  noticeId: string | undefined,
): Promise<boolean> {
  if (count === 0) return false;
  if (!deps.mailSender || !deps.operationsAddress) {
    // Said once per process at warn level (a catch-up at start runs many checks), then at debug.
    const level = warnedWithoutMail.has(deps) ? 'debug' : 'warn';
    warnedWithoutMail.add(deps);
    deps.log[level]({ reports: count }, 'late or missing custodian reports, but no mail.smtp or notifications.operationsAddress to tell anyone; see `depot-gateway reports` and `reports --annual`');
    return false;
  }
  const { subject, text } = notice();
  await deps.mailSender.send({
    to: deps.operationsAddress, subject, text,
    ...(noticeId ? { messageId: `<${idPrefix}.${noticeId.replace(/[^0-9A-Za-z.-]/g, '.')}@depot-gateway>` } : {}),
  });
  deps.log.info({ reports: count, to: deps.operationsAddress }, 'custodian report notice sent');
  return true;
}

/** The deadline check as a calendar job: a period is one check, `YYYY-MM-DD HH:MM` Stockholm time. */
export function reportDeadlineJob(deps: DeadlineCheckDeps): CalendarJob {
  const horizon = deps.catchUpBankingDays ?? DEFAULT_CATCH_UP_BANKING_DAYS;
  return {
    name: DEADLINE_CHECK_JOB,
    patterns: DEADLINE_CHECK_PATTERNS,
    duePeriods(now) {
      let day = bankingDayOnOrBefore(stockholmDate(now));
      const days: IsoDate[] = [day];
      for (let i = 1; i < horizon; i++) days.unshift((day = previousBankingDay(day)));
      return days.flatMap((d) => DEADLINE_CHECK_TIMES.filter((time) => reportDeadline(d, time).getTime() <= now.getTime()).map((time) => `${d} ${time}`));
    },
    // A check covers its own day and every later one whose deadline has passed: the
    // first check caught up at start sees the whole outage and sends one notice.
    // The yearly reports are checked by the same runs, for the latest account year
    // whose window has closed: the first check after 30 April finds them.
    async run({ sql, period, firedAt }) {
      const dueDays = bankingDaysBetween(period.slice(0, 10), latestPassedDueDay(firedAt));
      const daily = await checkReportDeadlines(sql, deps, dueDays, firedAt, period);
      const annual = await checkAnnualReportDeadlines(sql, deps, latestClosedAccountYear(firedAt), firedAt, period);
      deps.metrics?.reportDeadlinesMissed('daily', daily.recordedMissing);
      deps.metrics?.reportDeadlinesMissed('annual', annual.recordedMissing);
    },
  };
}

// ---- Listing for staff -------------------------------------------------------------

/** One row of the staff listing, as the API sends it and the CLI prints it. */
export interface CustodianReportView {
  readonly custodianId: string;
  readonly kind: ReportKind;
  readonly dueDay: IsoDate;
  readonly deadline: string;
  readonly status: ReportStatus;
  readonly arrivedAt: string | null;
  readonly messageId: string | null;
  readonly notifiedAt: string | null;
}

export interface ReportQuery {
  /** First due day; default 14 days before `to`. */
  readonly from?: string | undefined;
  /** Last due day; default today (Stockholm). */
  readonly to?: string | undefined;
  /** Only these statuses; default all. */
  readonly statuses?: readonly string[] | undefined;
}

/** The widest range one listing covers, in days. */
const MAX_RANGE_DAYS = 366;

/**
 * Every expected report of the banking days from `from` through `to`: the recorded
 * outcome where there is one, else on-time/late from the arrival or pending/missing
 * from the clock. Unknown statuses and bad dates are REQUEST_INVALID.
 */
export async function listCustodianReports(sql: Sql, custodians: readonly string[], query: ReportQuery, now: Date): Promise<CustodianReportView[]> {
  const to = query.to ?? stockholmDate(now);
  const from = query.from ?? addDays(to, -14);
  for (const [name, value] of [['from', from], ['to', to]] as const) {
    if (!isIsoDate(value) || addDays(value, 0) !== value) throw new GatewayError('REQUEST_INVALID', `"${name}" must be a date YYYY-MM-DD, not "${value}".`);
  }
  if (from > to || addDays(from, MAX_RANGE_DAYS) < to) throw new GatewayError('REQUEST_INVALID', `"from" must be on or before "to", at most ${MAX_RANGE_DAYS} days apart.`);
  const statuses = checkedStatuses(query.statuses);
  const recorded = await listRecordedDeadlines(sql, from, to);
  const byKey = new Map(recorded.map((r) => [`${r.custodianId}|${r.kind}|${r.dueDay}`, r]));
  const arrivals = recorded.flatMap((r) => (r.arrivedAt && r.messageId ? [{ ...r, arrivedAt: r.arrivedAt, messageId: r.messageId }] : []));
  const expected = new Set(custodians);
  const owes = await custodiansFirstSeen(sql);
  const computed = reportStatuses({ custodians: [...new Set([...custodians, ...recorded.map((r) => r.custodianId)])], dueDays: bankingDaysBetween(from, to), arrivals, now });
  return computed.flatMap((report) => {
    const row = byKey.get(`${report.custodianId}|${report.kind}|${report.dueDay}`);
    if (!row && (!expected.has(report.custodianId) || !owes(report.custodianId, report.deadline))) return [];
    const status = row?.status === 'missing' ? 'missing' : report.status;
    if (statuses && !statuses.has(status)) return [];
    return [{
      custodianId: report.custodianId, kind: report.kind, dueDay: report.dueDay, deadline: report.deadline.toISOString(), status,
      arrivedAt: report.arrivedAt?.toISOString() ?? null, messageId: report.messageId ?? null, notifiedAt: row?.notifiedAt?.toISOString() ?? null,
    }];
  });
}

/** One row of the staff listing of yearly reports, as the API sends it and the CLI prints it. */
export interface AnnualCustodianReportView {
  readonly custodianId: string;
  readonly kind: AnnualReportKind;
  readonly year: number;
  readonly deadline: string;
  readonly status: ReportStatus;
  readonly arrivedAt: string | null;
  readonly messageId: string | null;
  readonly notifiedAt: string | null;
}

export interface AnnualReportQuery {
  /** The account year; default the year before today's (Stockholm), whose reports are due this spring. */
  readonly year?: string | number | undefined;
  /** Only these statuses; default all. */
  readonly statuses?: readonly string[] | undefined;
}

/**
 * Every expected yearly report of one account year — of each custodian with a custody
 * account open during it, and of any other that sent one — with the recorded outcome
 * where there is one, else pending/missing from the clock. A bad year or an unknown
 * status is REQUEST_INVALID.
 */
export async function listAnnualCustodianReports(sql: Sql, query: AnnualReportQuery, now: Date): Promise<AnnualCustodianReportView[]> {
  const asked = String(query.year ?? Number(stockholmDate(now).slice(0, 4)) - 1);
  if (!/^[12]\d{3}$/.test(asked)) throw new GatewayError('REQUEST_INVALID', `"year" must be a year YYYY, not "${asked}".`);
  const year = Number(asked);
  const statuses = checkedStatuses(query.statuses);
  const recorded = await listRecordedAnnualReports(sql, year);
  const byKey = new Map(recorded.map((r) => [`${r.custodianId}|${r.kind}`, r]));
  const arrivals = recorded.flatMap((r) => (r.arrivedAt && r.messageId ? [{ ...r, arrivedAt: r.arrivedAt, messageId: r.messageId }] : []));
  const custodians = [...new Set([...(await custodiansWithAccountsOpenIn(sql, year)), ...recorded.map((r) => r.custodianId)])];
  const owes = await custodiansFirstSeen(sql);
  return annualReportStatuses({ custodians, year, arrivals, now }).flatMap((report) => {
    const row = byKey.get(`${report.custodianId}|${report.kind}`);
    if (!row && !owes(report.custodianId, report.deadline)) return [];
    const status = row?.status === 'missing' ? 'missing' : report.status;
    if (statuses && !statuses.has(status)) return [];
    return [{
      custodianId: report.custodianId, kind: report.kind, year, deadline: report.deadline.toISOString(), status,
      arrivedAt: report.arrivedAt?.toISOString() ?? null, messageId: report.messageId ?? null, notifiedAt: row?.notifiedAt?.toISOString() ?? null,
    }];
  });
}

/** The statuses asked for, or undefined for all; an unknown one is REQUEST_INVALID. */
function checkedStatuses(asked: readonly string[] | undefined): ReadonlySet<string> | undefined {
  const statuses = asked?.length ? new Set(asked) : undefined;
  for (const status of statuses ?? []) {
    if (!(REPORT_STATUSES as readonly string[]).includes(status)) throw new GatewayError('REQUEST_INVALID', `unknown status "${status}"; one of ${REPORT_STATUSES.join(', ')}.`);
  }
  return statuses;
}
