import type { IsoDate } from './calendar-date.ts';
import type { Signatory, SignatoryRole } from './withdrawal-request.rules.ts';

/**
 * Who signs for an organisation policyholder, pure: the company signatories in its
 * register that are in force on the day (from and to inclusive, not revoked), and how
 * many of them must sign together — the signing rule as a count (1: each alone,
 * 2: jointly two). A sign case of an organisation lists every signatory in force (role
 * `company-signatory`) and the insured, and is complete once the insured and the
 * required count of company signatories have signed.
 *
 * Worked example: three signatories registered, jointly two; a request lists all three
 * and the insured; one signatory signs → not complete; a second signs → complete, the
 * third need not sign.
 */
export interface CompanySignatoryEntry {
  readonly personalNumber: string;
  readonly validFrom: IsoDate;
  readonly validTo: IsoDate | null;
  readonly revokedAt: string | null;
}

export function inForceOn<T extends CompanySignatoryEntry>(register: readonly T[], day: IsoDate): T[] {
  return register.filter((s) => s.revokedAt === null && s.validFrom <= day && (s.validTo === null || day <= s.validTo));
}

export type CompanySigning =
  | { readonly ok: true; readonly signatories: Signatory[]; readonly required: number }
  | { readonly ok: false; readonly message: string };

/**
 * The signatories of an organisation's sign case, or why none can be made (nothing
 * registered, no rule, too few in force). The insured signs too where there is one (a
 * request on an insurance, an insurance application); an employer's pension plan
 * application has none (`insured` left out, `signsFor` 'employer').
 */
export function companySigningOf(input: {
  organisationNumber: string; insured?: string; inForce: readonly { personalNumber: string }[]; required: number | undefined; signsFor?: 'policyholder' | 'employer';
}): CompanySigning {
  const register = `register them with POST /api/organisations/${input.organisationNumber}/signatories (or \`depot-gateway company-signatories register\`)`;
  const party = `The ${input.signsFor ?? 'policyholder'} ${input.organisationNumber}`;
  if (input.inForce.length === 0) return { ok: false, message: `${party} is an organisation with no company signatories in force: ${register}.` };
  if (input.required === undefined) {
    return { ok: false, message: `${party} has no signing rule: set how many company signatories must sign with PUT /api/organisations/${input.organisationNumber}/signing-rule.` };
  }
  if (input.inForce.length < input.required) {
    return { ok: false, message: `${input.required} company signatories of ${input.organisationNumber} must sign, but only ${input.inForce.length} are in force: ${register}.` };
  }
  const company: Signatory[] = [...new Set(input.inForce.map((s) => s.personalNumber))].map((personalNumber) => ({ role: 'company-signatory', personalNumber }));
  return { ok: true, signatories: input.insured === undefined ? company : [...company, { role: 'insured', personalNumber: input.insured }], required: input.required };
}

/** Complete when every personal signatory (policyholder, insured) has signed and, for an organisation, the required count of company signatories. */
export function isFullySigned(signatories: readonly { role: SignatoryRole; signedAt: unknown }[], companySignaturesRequired: number | null): boolean {
  const personal = signatories.filter((s) => s.role !== 'company-signatory');
  const companySigned = signatories.filter((s) => s.role === 'company-signatory' && s.signedAt !== null).length;
  return personal.every((s) => s.signedAt !== null) && companySigned >= (companySignaturesRequired ?? 0);
}
