import type { IsoDate } from './calendar-date.ts';

/**
 * The access rules of the REST API, decided in one place for every route.
 *
 * Callers are API clients (OAuth 2.0 client credentials): an advisor firm, whose
 * advisors act under its organisation number, or a custodian. Staff have their own
 * login and do not come through here.
 *
 * - The product catalogue (products, their documents and funds) is for every client.
 * - An advisor's record is for the firm the advisor acts for, and so is an application
 *   (an individual insurance or an employer's pension plan) for the firm that made it.
 *   Only advisor firms make applications.
 * - A customer's data is for (1) a firm holding a power of attorney on the customer
 *   valid today — then all of the customer's insurances — or (2) a custodian where the
 *   customer has a custody account — then only the insurances held there.
 * - Reading and acting differ by the kind of power: an information power lets a firm
 *   read the customer's engagement; only an intermediation power lets it act for the
 *   customer (register a withdrawal account, request a withdrawal, start or follow a
 *   signing). A firm holding only an information power that tries to act is answered as
 *   a firm with no power at all. A custodian acts on the insurances it holds, as it
 *   reads them (the seed's signing "in a custodian's interface").
 * - Everything else is refused, and a refusal must look exactly like "not found" to
 *   the caller (the routes answer both with the same 404), so a caller learns nothing
 *   about customers it may not see.
 */

export type ApiCaller =
  | { readonly kind: 'advisor-firm'; readonly clientId: string; readonly organisationNumber: string }
  | { readonly kind: 'custodian'; readonly clientId: string; readonly custodianId: string };

export interface PowerOfAttorney {
  readonly holderOrganisationNumber: string;
  readonly kind: 'information' | 'intermediation';
  readonly validFrom: IsoDate;
  /** Last day it is valid; none: until revoked. */
  readonly validTo: IsoDate | null;
  readonly revoked: boolean;
}

export type ApiResource =
  | { readonly kind: 'catalogue' }
  | { readonly kind: 'advisor'; readonly organisationNumber: string }
  /** An application: the firm that made it. */
  | { readonly kind: 'application'; readonly firmOrganisationNumber: string }
  /** Making a new application (insurance or pension plan). */
  | { readonly kind: 'new-application' }
  | {
      readonly kind: 'customer';
      /** The powers of attorney registered on the customer, revoked and expired ones included. */
      readonly powers: readonly PowerOfAttorney[];
      /** Custodians holding a custody account of one of the customer's insurances. */
      readonly custodianIds: readonly string[];
    };

/** What the caller wants to do with a customer's data. */
export type AccessPurpose = 'read' | 'act';

export type Access =
  | { readonly allowed: false }
  | { readonly allowed: true; readonly scope: 'all' }
  /** Only what is held at this custodian (a custodian reading a customer). */
  | { readonly allowed: true; readonly scope: 'custody'; readonly custodianId: string };

const REFUSED: Access = { allowed: false };
const ALL: Access = { allowed: true, scope: 'all' };

export function decideAccess(caller: ApiCaller, resource: ApiResource, today: IsoDate, purpose: AccessPurpose = 'read'): Access {
  switch (resource.kind) {
    case 'catalogue':
      return ALL;
    case 'advisor':
      return caller.kind === 'advisor-firm' && caller.organisationNumber === resource.organisationNumber ? ALL : REFUSED;
    case 'application':
      return caller.kind === 'advisor-firm' && caller.organisationNumber === resource.firmOrganisationNumber ? ALL : REFUSED;
    case 'new-application':
      return caller.kind === 'advisor-firm' ? ALL : REFUSED;
    case 'customer':
      if (caller.kind === 'advisor-firm') {
        return resource.powers.some((power) => power.holderOrganisationNumber === caller.organisationNumber && isValidOn(power, today) && allowsPurpose(power, purpose)) ? ALL : REFUSED;
      }
      return resource.custodianIds.includes(caller.custodianId) ? { allowed: true, scope: 'custody', custodianId: caller.custodianId } : REFUSED;
    default:
      return resource satisfies never;
  }
}

/** Whether an access decision reaches an insurance held at `custodianId` (a custodian's reaches only its own). */
export function reachesInsurance(access: Access, custodianId: string): boolean {
  return access.allowed && (access.scope === 'all' || access.custodianId === custodianId);
}

function allowsPurpose(power: PowerOfAttorney, purpose: AccessPurpose): boolean {
  switch (purpose) {
    case 'read':
      return true;
    case 'act':
      return power.kind === 'intermediation';
    default:
      return purpose satisfies never;
  }
}

/** Valid on a day: not revoked, begun, not yet ended (validTo is the last valid day). */
export function isValidOn(power: PowerOfAttorney, day: IsoDate): boolean {
  return !power.revoked && power.validFrom <= day && (power.validTo === null || day <= power.validTo);
}
