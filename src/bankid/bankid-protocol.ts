/**
 * The BankID relying-party API v6.0 as it travels on the wire: the paths, the JSON
 * bodies of sign, collect and cancel, the hint codes and the error codes with the HTTP
 * status BankID answers each with. The adapter (bankid-client.ts) and the local server
 * (local-bankid-server.ts) both speak exactly this, so a test of one against the other
 * tests the adapter against the protocol, not against itself.
 */

/** The API version path every request goes under. */
export const RP_API_PATH = '/rp/v6.0';

export const RP_PATHS = {
  sign: `${RP_API_PATH}/sign`,
  collect: `${RP_API_PATH}/collect`,
  cancel: `${RP_API_PATH}/cancel`,
} as const;

export const USER_VISIBLE_DATA_FORMATS = ['simpleMarkdownV1', 'plaintext'] as const;
export type UserVisibleDataFormat = (typeof USER_VISIBLE_DATA_FORMATS)[number];

/** How an order must be carried out; every field optional. */
export interface SignRequirement {
  /** Only this person (12 digits, YYYYMMDDNNNN) can sign the order. */
  readonly personalNumber?: string;
  /** The security code must be used, not biometrics. */
  readonly pinCode?: boolean;
  /** A machine-readable travel document must be checked. */
  readonly mrtd?: boolean;
  readonly cardReader?: 'class1' | 'class2';
  readonly certificatePolicies?: readonly string[];
}

/** The body of POST /rp/v6.0/sign. */
export interface SignRequestBody {
  readonly endUserIp: string;
  /** Base64 of the UTF-8 text the person reads in the BankID app before signing. */
  readonly userVisibleData: string;
  readonly userVisibleDataFormat?: UserVisibleDataFormat;
  /** Base64 of data signed along but not shown. */
  readonly userNonVisibleData?: string;
  readonly requirement?: SignRequirement;
  readonly returnUrl?: string;
}

/** The answer to sign. */
export interface SignResponseBody {
  readonly orderRef: string;
  readonly autoStartToken: string;
  readonly qrStartToken: string;
  readonly qrStartSecret: string;
}

export interface OrderRefBody {
  readonly orderRef: string;
}

export const PENDING_HINT_CODES = ['outstandingTransaction', 'noClient', 'started', 'userMrtd', 'userCallConfirm', 'userSign'] as const;
export const FAILED_HINT_CODES = [
  'expiredTransaction', 'certificateErr', 'userCancel', 'cancelled', 'startFailed',
  'userDeclinedCall', 'notSupportedByUserApp', 'transactionRiskBlocked',
] as const;
export type PendingHintCode = (typeof PENDING_HINT_CODES)[number];
export type FailedHintCode = (typeof FAILED_HINT_CODES)[number];

export interface CompletionData {
  readonly user: { readonly personalNumber: string; readonly name: string; readonly givenName: string; readonly surname: string };
  readonly device: { readonly ipAddress: string; readonly uhi?: string };
  /** The day the person's BankID was issued, YYYY-MM-DD. */
  readonly bankIdIssueDate: string;
  readonly stepUp?: { readonly mrtd: boolean };
  /** Base64 of the XML signature over what the person saw and signed. */
  readonly signature: string;
  /** Base64 of the OCSP response for the signing certificate at signing time. */
  readonly ocspResponse: string;
}

/**
 * The answer to collect. BankID may add hint codes at any time, so the hint code is
 * any string here; hint-codes.ts says what the known ones mean.
 */
export type CollectResponseBody =
  | { readonly orderRef: string; readonly status: 'pending'; readonly hintCode: PendingHintCode | (string & {}) }
  | { readonly orderRef: string; readonly status: 'failed'; readonly hintCode: FailedHintCode | (string & {}) }
  | { readonly orderRef: string; readonly status: 'complete'; readonly completionData: CompletionData };

/** BankID's error codes and the HTTP status each comes with. */
export const RP_ERROR_STATUS = {
  alreadyInProgress: 400,
  invalidParameters: 400,
  unauthorized: 401,
  notFound: 404,
  methodNotAllowed: 405,
  requestTimeout: 408,
  unsupportedMediaType: 415,
  internalError: 500,
  maintenance: 503,
} as const;
export type RpErrorCode = keyof typeof RP_ERROR_STATUS;

/** The body of every 4xx and 5xx answer. */
export interface RpErrorBody {
  readonly errorCode: RpErrorCode | (string & {});
  readonly details: string;
}
