import { addDays, type IsoDate } from './calendar-date.ts';
import type { PlanCategoryInput } from './plan-application.rules.ts';
import { swedishAmount } from './withdrawal-request.rules.ts';

/**
 * The signing of an application, pure: an application takes effect only once signed
 * with BankID by those it binds, and until then it is `awaiting-signature`.
 *
 * - Who signs an insurance application: the policyholder, and the insured where another
 *   person (signatoriesOf); an organisation policyholder signs through its company
 *   signatories by the register's rule, with the insured (company-signatories.rules.ts).
 *   A pension plan application: the employer's company signatories alone (the plan's
 *   employees are insured by the employer's agreement; they do not sign it).
 * - What they read in the BankID app (simpleMarkdownV1, Swedish): the application, the
 *   product, who is policyholder and insured, the premiums and coverages; for a plan the
 *   employer, the product, how many employees and the categories' premium rules.
 * - Until when: the last day to sign is the day of submission (Stockholm) plus
 *   `api.applicationSigningDays` calendar days; from the next day it is `expired`.
 *
 * Worked example: submitted on 2026-11-22 with 30 days, it may be signed through
 * 2026-12-22 and expires on 2026-12-23.
 */

/** The last day an application submitted on `submittedOn` may be signed. */
export function applicationSignBy(submittedOn: IsoDate, signingDays: number): IsoDate {
  return addDays(submittedOn, signingDays);
}

/** Whether the last day to sign has passed on `today`. */
export function isPastSignBy(signBy: IsoDate, today: IsoDate): boolean {
  return today > signBy;
}

export interface InsuranceApplicationText {
  readonly applicationId: string;
  readonly productId: string;
  readonly productName: string;
  readonly policyholder: string;
  readonly insured: string;
  readonly premium: { readonly single?: string; readonly monthly?: string };
  readonly coverages: { readonly repaymentProtection: boolean; readonly premiumWaiver: boolean };
}

/** What the signatories of an insurance application read and sign. */
export function insuranceApplicationSignText(input: InsuranceApplicationText): string {
  const premium = [
    ...(input.premium.single ? [`- Engångspremie: **${swedishAmount(input.premium.single)} kr**`] : []),
    ...(input.premium.monthly ? [`- Månadspremie: **${swedishAmount(input.premium.monthly)} kr**`] : []),
  ];
  return [
    '# Ansökan om depåförsäkring',
    '',
    `Ansökan ${input.applicationId} om **${plainText(input.productName)}** (${input.productId}).`,
    '',
    `- Försäkringstagare: ${customerNumber(input.policyholder)}`,
    `- Försäkrad: ${customerNumber(input.insured)}`,
    ...premium,
    `- Återbetalningsskydd: ${yesNo(input.coverages.repaymentProtection)}`,
    `- Premiebefrielse: ${yesNo(input.coverages.premiumWaiver)}`,
  ].join('\n');
}

export interface PlanApplicationText {
  readonly applicationId: string;
  readonly productId: string;
  readonly productName: string;
  readonly employer: { readonly organisationNumber: string; readonly name: string };
  readonly employees: number;
  readonly categories: readonly PlanCategoryInput[];
}

/** What the employer's company signatories read and sign. */
export function planApplicationSignText(input: PlanApplicationText): string {
  return [
    '# Ansökan om tjänstepension',
    '',
    `Ansökan ${input.applicationId}: **${plainText(input.employer.name)}** (${customerNumber(input.employer.organisationNumber)})`,
    `tecknar **${plainText(input.productName)}** (${input.productId}) för **${input.employees} ${input.employees === 1 ? 'anställd' : 'anställda'}**.`,
    '',
    '## Kategorier',
    ...input.categories.map((category) => `- ${plainText(category.code)} ${plainText(category.name)}: ${premiumRuleText(category.premium)}`),
  ].join('\n');
}

function premiumRuleText(rule: PlanCategoryInput['premium']): string {
  if ('fixedMonthly' in rule) return `${swedishAmount(rule.fixedMonthly)} kr i månaden`;
  const percent = (value: string) => `${value.replace('.', ',')} %`;
  return rule.percentAboveCap === undefined
    ? `${percent(rule.percentOfSalary)} av månadslönen`
    : `${percent(rule.percentOfSalary)} av månadslönen upp till 7,5 inkomstbasbelopp om året, ${percent(rule.percentAboveCap)} över`;
}

/** 198506152381 → 19850615-2381; 5561234567 → 556123-4567. */
function customerNumber(id: string): string {
  return /^\d{10,12}$/.test(id) ? `${id.slice(0, -4)}-${id.slice(-4)}` : id;
}

function yesNo(value: boolean): string {
  return value ? 'ja' : 'nej';
}

/**
 * A name given in the application, without the marks simpleMarkdownV1 reads as
 * formatting (`*`, `+`, `#`, `_`, `|`, `\`, backquotes): what a signatory reads is the
 * name, never markup an applicant slipped into it.
 */
function plainText(text: string): string {
  return text.replace(/[*+#_|\\`]/g, '').replace(/\s+/g, ' ').trim();
}
