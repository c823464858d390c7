/**
 * What a document is about, for staff's search: the people, employers, agreements,
 * insurances and custody accounts a typed document names. Read from the typed
 * document (the form every message type reads its XML into) by field name, so a new
 * message type whose fields carry these names is searchable without a line here.
 *
 * Personal identity numbers are sensitive: the console shows them masked
 * (identifiers.ts, maskPersonalIdentityNumbers) except in a message's detail view.
 */
export const DOCUMENT_KEY_KINDS = ['personnummer', 'organisationsnummer', 'agreement', 'insurance', 'custody-account'] as const;
export type DocumentKeyKind = (typeof DOCUMENT_KEY_KINDS)[number];

export interface DocumentKey {
  readonly kind: DocumentKeyKind;
  readonly value: string;
}

/** Typed-document field names and the kind of key each holds. */
const FIELD_KINDS: Readonly<Record<string, DocumentKeyKind>> = {
  personalIdentityNumber: 'personnummer',
  employerOrganisationNumber: 'organisationsnummer',
  custodianOrganisationNumber: 'organisationsnummer',
  organisationNumber: 'organisationsnummer',
  agreementNumber: 'agreement',
  insuranceNumber: 'insurance',
  custodyAccount: 'custody-account',
  fromCustodyAccount: 'custody-account',
  toCustodyAccount: 'custody-account',
  // In custodian reports (Holdings, Transactions, CostAndCharges) an account is a custody account.
  accountNumber: 'custody-account',
};

/** Every distinct key a typed document names, in the order first met. */
export function extractDocumentKeys(document: unknown): DocumentKey[] {
  const found = new Map<string, DocumentKey>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const element of value) visit(element);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    for (const [field, inner] of Object.entries(value)) {
      const kind = FIELD_KINDS[field];
      if (kind && typeof inner === 'string') {
        const normalised = normaliseKey(kind, inner);
        if (normalised) found.set(`${kind}\0${normalised}`, { kind, value: normalised });
      } else {
        visit(inner);
      }
    }
  };
  visit(document);
  return [...found.values()];
}

/**
 * A key as stored and as searched for: identity and organisation numbers as digits
 * only (staff may type 19700101-1233 or 556123-4567), other keys trimmed. Empty when
 * nothing is left.
 */
export function normaliseKey(kind: DocumentKeyKind, value: string): string {
  switch (kind) {
    case 'personnummer':
    case 'organisationsnummer':
      return value.replace(/[\s-]/g, '');
    case 'agreement':
    case 'insurance':
    case 'custody-account':
      return value.trim();
    default:
      return kind satisfies never;
  }
}
