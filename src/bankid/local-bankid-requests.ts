import { isIP } from 'node:net';
import { USER_VISIBLE_DATA_FORMATS, type SignRequestBody, type SignRequirement, type UserVisibleDataFormat } from './bankid-protocol.ts';

/**
 * The local BankID server's check of a sign request, with BankID's limits:
 * endUserIp an IPv4 or IPv6 address; userVisibleData base64, 1 to 40 000 characters;
 * userNonVisibleData base64, at most 200 000; userVisibleDataFormat one of the known
 * formats; requirement.personalNumber 12 digits. Anything else wrong is answered
 * invalidParameters naming the field, as BankID does. Fields it does not model
 * (returnUrl, returnRisk, app, web, other requirements) are let through unread.
 */
export type SignRequestCheck = { readonly ok: true; readonly request: SignRequestBody } | { readonly ok: false; readonly details: string };

const MAX_VISIBLE_CHARS = 40_000;
const MAX_NON_VISIBLE_CHARS = 200_000;

export function readSignRequest(body: object): SignRequestCheck {
  const fields = body as Record<string, unknown>;
  const { endUserIp, userVisibleData, userNonVisibleData, userVisibleDataFormat, requirement } = fields;
  if (typeof endUserIp !== 'string' || isIP(endUserIp) === 0) return invalid('endUserIp');
  if (!isBase64(userVisibleData, MAX_VISIBLE_CHARS)) return invalid('userVisibleData');
  if (userNonVisibleData !== undefined && !isBase64(userNonVisibleData, MAX_NON_VISIBLE_CHARS)) return invalid('userNonVisibleData');
  if (userVisibleDataFormat !== undefined && !USER_VISIBLE_DATA_FORMATS.includes(userVisibleDataFormat as UserVisibleDataFormat)) return invalid('userVisibleDataFormat');
  const checkedRequirement = readRequirement(requirement);
  if (checkedRequirement === null) return invalid('requirement');
  if (checkedRequirement && 'invalid' in checkedRequirement) return invalid(checkedRequirement.invalid);
  return {
    ok: true,
    request: {
      endUserIp,
      userVisibleData,
      ...(userVisibleDataFormat !== undefined ? { userVisibleDataFormat: userVisibleDataFormat as UserVisibleDataFormat } : {}),
      ...(userNonVisibleData !== undefined ? { userNonVisibleData: userNonVisibleData as string } : {}),
      ...(checkedRequirement ? { requirement: checkedRequirement } : {}),
    },
  };
}

/** undefined: none given; null: not an object; { invalid }: a bad field. */
function readRequirement(requirement: unknown): SignRequirement | { invalid: string } | null | undefined {
  if (requirement === undefined) return undefined;
  if (typeof requirement !== 'object' || requirement === null || Array.isArray(requirement)) return null;
  const { personalNumber, pinCode, mrtd } = requirement as Record<string, unknown>;
  if (personalNumber !== undefined && (typeof personalNumber !== 'string' || !/^\d{12}$/.test(personalNumber))) return { invalid: 'personalNumber' };
  if (pinCode !== undefined && typeof pinCode !== 'boolean') return { invalid: 'pinCode' };
  if (mrtd !== undefined && typeof mrtd !== 'boolean') return { invalid: 'mrtd' };
  return requirement as SignRequirement;
}

function isBase64(value: unknown, maxChars: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= maxChars &&
    /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value);
}

function invalid(field: string): SignRequestCheck {
  return { ok: false, details: `Invalid ${field}` };
}
