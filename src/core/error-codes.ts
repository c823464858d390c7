/**
 * The one vocabulary of failures in depot-gateway. Every code a sender, an operator
 * or a script can see is listed here with its meaning, the HTTP status it maps to at
 * the edge and whether a retry can help. docs/errors.md documents the same table and
 * a test keeps the two in step.
 *
 * - `document` codes reject a whole document; they are written into its response.
 * - `item` codes reject one item of a document; the other items still apply.
 * - `system` codes are failures of the gateway or its surroundings, never of the input.
 */
export type ErrorScope = 'document' | 'item' | 'system';

export interface ErrorCodeInfo {
  readonly scope: ErrorScope;
  readonly httpStatus: number;
  readonly retryable: boolean;
  readonly message: string;
}

export const ERROR_CODES = {
  // Intake: checked before a byte of XML is parsed.
  DOCUMENT_EMPTY: { scope: 'document', httpStatus: 400, retryable: false, message: 'The document is empty.' },
  DOCUMENT_TOO_LARGE: { scope: 'document', httpStatus: 413, retryable: false, message: 'The document is larger than the configured limit.' },
  UNKNOWN_COUNTERPARTY: { scope: 'document', httpStatus: 403, retryable: false, message: 'The sender is not a configured counterparty.' },
  DUPLICATE_DOCUMENT: { scope: 'document', httpStatus: 409, retryable: false, message: 'The document was already received (same content or same MessageId).' },
  FILE_NAME_REUSED: { scope: 'document', httpStatus: 409, retryable: false, message: 'Another document was already received under this file name; use a new file name or MessageId.' },

  // XML gate: hostile or broken XML.
  XML_ENCODING_INVALID: { scope: 'document', httpStatus: 400, retryable: false, message: 'The document is not valid UTF-8.' },
  XML_DTD_FORBIDDEN: { scope: 'document', httpStatus: 400, retryable: false, message: 'Document type declarations (DTDs) are not accepted.' },
  XML_EXTERNAL_ENTITY: { scope: 'document', httpStatus: 400, retryable: false, message: 'External entities are not accepted.' },
  XML_ENTITY_EXPANSION: { scope: 'document', httpStatus: 400, retryable: false, message: 'Entity declarations are not accepted (entity expansion).' },
  XML_TOO_DEEP: { scope: 'document', httpStatus: 400, retryable: false, message: 'The document nests elements deeper than the configured limit.' },
  XML_TOO_MANY_ATTRIBUTES: { scope: 'document', httpStatus: 400, retryable: false, message: 'An element has more attributes than the configured limit.' },
  XML_DOCUMENT_TOO_MANY_ATTRIBUTES: { scope: 'document', httpStatus: 400, retryable: false, message: 'The document has more attributes than the configured limit.' },
  XML_MALFORMED: { scope: 'document', httpStatus: 400, retryable: false, message: 'The document is not well-formed XML.' },
  UNKNOWN_DOCUMENT_TYPE: { scope: 'document', httpStatus: 400, retryable: false, message: 'The root element and namespace name no known document type.' },
  MESSAGE_TYPE_NOT_ALLOWED: { scope: 'document', httpStatus: 403, retryable: false, message: 'The counterparty may not send this document type.' },
  SCHEMA_VIOLATION: { scope: 'document', httpStatus: 400, retryable: false, message: 'The document does not follow its XML schema.' },
  SCHEMA_VALIDATION_TIMEOUT: { scope: 'document', httpStatus: 422, retryable: false, message: 'Schema validation of the document took longer than the time budget and was stopped.' },

  // Business rules: whole document.
  AGREEMENT_UNKNOWN: { scope: 'document', httpStatus: 422, retryable: false, message: 'The agreement number is not known.' },
  SENDER_NOT_AUTHORISED: { scope: 'document', httpStatus: 403, retryable: false, message: 'The sender is neither the employer nor an administrator of the agreement.' },
  EMPLOYER_MISMATCH: { scope: 'document', httpStatus: 422, retryable: false, message: 'The employer organisation number does not match the agreement.' },
  ORGANISATION_NUMBER_INVALID: { scope: 'document', httpStatus: 422, retryable: false, message: 'The organisation number fails its check digit or form.' },

  // Business rules: one item.
  PERSONAL_IDENTITY_NUMBER_INVALID: { scope: 'item', httpStatus: 422, retryable: false, message: 'The personal identity number fails its check digit or date.' },
  EMPLOYMENT_UNKNOWN: { scope: 'item', httpStatus: 422, retryable: false, message: 'The person has no employment under the agreement.' },
  EMPLOYMENT_ALREADY_ENDED: { scope: 'item', httpStatus: 422, retryable: false, message: 'The employment has already ended.' },
  EMPLOYMENT_END_BEFORE_START: { scope: 'item', httpStatus: 422, retryable: false, message: 'The end date is before the employment began.' },
  INSURANCE_UNKNOWN: { scope: 'item', httpStatus: 422, retryable: false, message: 'The insurance is not known for this person under the agreement.' },
  EFFECTIVE_DATE_TOO_OLD: { scope: 'item', httpStatus: 422, retryable: false, message: 'The effective date is further back than the configured limit.' },
  EFFECTIVE_DATE_BEFORE_START: { scope: 'item', httpStatus: 422, retryable: false, message: 'The effective date is before the insurance or employment began.' },
  FEE_OUT_OF_BOUNDS: { scope: 'item', httpStatus: 422, retryable: false, message: "The fee is outside the product's bounds." },
  BILLING_STOP_BEFORE_START: { scope: 'item', httpStatus: 422, retryable: false, message: 'Billing cannot stop before the day it last resumed.' },
  DUPLICATE_ITEM: { scope: 'item', httpStatus: 422, retryable: false, message: 'An earlier item of the same document has the same item id.' },
  CATEGORY_UNKNOWN: { scope: 'item', httpStatus: 422, retryable: false, message: 'The category (benefit group) is not defined on the agreement.' },
  CATEGORY_ALREADY_DEFINED: { scope: 'item', httpStatus: 422, retryable: false, message: 'The agreement already defines a category with that code.' },
  COST_CENTER_UNKNOWN: { scope: 'item', httpStatus: 422, retryable: false, message: 'The cost center is not defined on the agreement.' },
  PRODUCT_UNKNOWN: { scope: 'item', httpStatus: 422, retryable: false, message: 'The product code is not known.' },
  PRODUCT_KIND_MISMATCH: { scope: 'item', httpStatus: 422, retryable: false, message: 'The target product is of another kind (P, T or K) than the insurance.' },
  TRANSFER_NOTHING_TO_MOVE: { scope: 'item', httpStatus: 422, retryable: false, message: 'The transfer names the product and custody account the insurance already has.' },
  INSURANCE_ALREADY_HELD: { scope: 'item', httpStatus: 422, retryable: false, message: 'The person already holds an insurance of that product under the agreement.' },
  INSURANCE_PAID_UP: { scope: 'item', httpStatus: 422, retryable: false, message: 'The insurance is paid-up and takes no premium changes.' },
  INSURANCE_ENDED: { scope: 'item', httpStatus: 422, retryable: false, message: 'The insurance has ended and takes no more changes.' },
  PREMIUM_OUT_OF_BOUNDS: { scope: 'item', httpStatus: 422, retryable: false, message: "The premium is outside the product's bounds." },
  BILLING_ALREADY_STOPPED: { scope: 'item', httpStatus: 422, retryable: false, message: 'Billing of the insurance is already stopped.' },
  BILLING_NOT_STOPPED: { scope: 'item', httpStatus: 422, retryable: false, message: 'Billing of the insurance is not stopped.' },
  BILLING_START_BEFORE_STOP: { scope: 'item', httpStatus: 422, retryable: false, message: 'Billing cannot resume before the day it stopped.' },
  ISIN_INVALID: { scope: 'item', httpStatus: 422, retryable: false, message: 'The ISIN is not valid: its check digit is wrong.' },
  FUND_NOT_SELECTABLE: { scope: 'item', httpStatus: 422, retryable: false, message: "The fund cannot be chosen in the insurance's product." },
  ALLOCATION_NOT_100: { scope: 'item', httpStatus: 422, retryable: false, message: "The allocation's percentages do not sum to 100." },
  ALLOCATION_DUPLICATE_FUND: { scope: 'item', httpStatus: 422, retryable: false, message: 'The allocation names a fund more than once.' },
  ADMINISTRATOR_UNKNOWN: { scope: 'item', httpStatus: 422, retryable: false, message: 'The person is not a current administrator of the agreement in that role.' },
  ADMINISTRATOR_ALREADY_REGISTERED: { scope: 'item', httpStatus: 422, retryable: false, message: 'The person is already an administrator of the agreement in that role.' },
  ADVISOR_UNKNOWN: { scope: 'item', httpStatus: 422, retryable: false, message: "The advisor code is not an active advisor of the applying firm." },
  CUSTODIAN_UNKNOWN: { scope: 'item', httpStatus: 422, retryable: false, message: 'The custodian is not one the insurer keeps custody accounts with.' },
  BENEFICIARY_MISSING: { scope: 'item', httpStatus: 422, retryable: false, message: 'A named beneficiary choice names no beneficiary.' },
  REPAYMENT_PROTECTION_REQUIRED: { scope: 'item', httpStatus: 422, retryable: false, message: 'A capital insurance (K) carries repayment protection: it cannot be applied for without it.' },
  APPLICATION_SIGNATORIES_MISSING: { scope: 'item', httpStatus: 422, retryable: false, message: "The organisation's company signatories or signing rule are not registered: nobody can sign the application." },
  COST_CENTER_ALREADY_DEFINED: { scope: 'item', httpStatus: 422, retryable: false, message: 'The application defines a cost center code more than once.' },
  EMPLOYEE_LISTED_TWICE: { scope: 'item', httpStatus: 422, retryable: false, message: 'The application lists the same employee more than once.' },
  INCOME_BASE_AMOUNT_UNKNOWN: { scope: 'item', httpStatus: 422, retryable: false, message: "The gateway does not yet know this year's income base amount, which a premium rule with a cap needs." },

  // Custodian reports: whole document, then one account.
  CUSTODIAN_MISMATCH: { scope: 'document', httpStatus: 403, retryable: false, message: "The report's custodian organisation number is not the sender's." },
  REPORT_YEAR_OUT_OF_RANGE: { scope: 'document', httpStatus: 422, retryable: false, message: 'The reported year has not ended yet or is too far back.' },
  CUSTODY_ACCOUNT_UNKNOWN: { scope: 'item', httpStatus: 422, retryable: false, message: 'The custody account is not one the sender holds for the insurer.' },
  CUSTODIAN_SWITCH_UNKNOWN: { scope: 'item', httpStatus: 422, retryable: false, message: 'The insurance has no open custodian switch to the sender.' },
  CUSTODIAN_SWITCH_NOT_ORDERED: { scope: 'item', httpStatus: 422, retryable: false, message: 'The custodian switch is not waiting for the new account (not yet ordered, or confirmed already).' },
  CUSTODY_ACCOUNT_IN_USE: { scope: 'item', httpStatus: 422, retryable: false, message: 'The custody account is already an account of the ledger, or not the one the switch names.' },
  ACCOUNT_SCHEMA_VIOLATION: { scope: 'item', httpStatus: 422, retryable: false, message: "The account's records do not follow the report's XML schema." },
  POSITION_DUPLICATE: { scope: 'item', httpStatus: 422, retryable: false, message: 'The account reports the same ISIN in more than one position.' },
  TRANSACTION_ID_DUPLICATE: { scope: 'item', httpStatus: 422, retryable: false, message: 'The account reports the same TransactionId more than once.' },
  ACCOUNT_REPORTED_TWICE: { scope: 'item', httpStatus: 422, retryable: false, message: 'An earlier account of the same report has the same account number.' },
  COST_CATEGORIES_MISMATCH: { scope: 'item', httpStatus: 422, retryable: false, message: "The three cost categories do not sum to the account's total costs after refund." },

  // Commission files: whole document, then one fee.
  ADVISOR_FIRM_UNKNOWN: { scope: 'document', httpStatus: 422, retryable: false, message: 'The commission file names an advisor firm the insurer does not know, or one other than its sender.' },
  COMMISSION_POWER_MISSING: { scope: 'item', httpStatus: 422, retryable: false, message: "The advisor firm holds no intermediation power of attorney on the insurance's policyholder for the whole period." },
  COMMISSION_PERIOD_INVALID: { scope: 'item', httpStatus: 422, retryable: false, message: 'The fee period is not one to twelve whole calendar months within the insurance.' },
  COMMISSION_ABOVE_CAP: { scope: 'item', httpStatus: 422, retryable: false, message: "The fee is above the product's cap on advisors' fees for the period." },
  COMMISSION_PERIOD_ALREADY_CHARGED: { scope: 'item', httpStatus: 422, retryable: false, message: 'A fee is already charged for a day of the period on the insurance.' },

  // Transfer leaflets from another insurer (TransferLeaflet): the whole leaflet.
  TRANSFER_LEAFLET_MISADDRESSED: { scope: 'document', httpStatus: 422, retryable: false, message: 'The leaflet is addressed to another receiving insurer.' },
  INSURER_MISMATCH: { scope: 'document', httpStatus: 403, retryable: false, message: "The leaflet's releasing insurer is not the sender." },
  TAX_CATEGORY_MISMATCH: { scope: 'document', httpStatus: 422, retryable: false, message: "The tax category does not fit the insurance type." },
  TRANSFER_CONDITIONS_INVALID: { scope: 'document', httpStatus: 422, retryable: false, message: "The leaflet's conditions break the rules that follow the capital of its insurance type." },
  TRANSFER_VALUE_DATE_IN_FUTURE: { scope: 'document', httpStatus: 422, retryable: false, message: 'The value date has not yet come.' },
  INSURANCE_TYPE_NOT_OFFERED: { scope: 'document', httpStatus: 422, retryable: false, message: 'The insurer offers no product of the insurance type to receive the capital in.' },
  TRANSFER_ALREADY_REGISTERED: { scope: 'document', httpStatus: 409, retryable: false, message: "The releasing insurer's insurance is already registered as a transfer in." },

  // SSEK endpoint: answered as SOAP faults (HTTP 500, as SOAP 1.1 prescribes).
  SSEK_ENVELOPE_INVALID: { scope: 'document', httpStatus: 500, retryable: false, message: 'The SOAP envelope is not acceptable.' },
  SSEK_SENDER_ID_UNKNOWN: { scope: 'document', httpStatus: 500, retryable: false, message: 'The SSEK SenderId names no counterparty set up for SSEK.' },
  SSEK_RECEIVER_ID_UNKNOWN: { scope: 'document', httpStatus: 500, retryable: false, message: 'The SSEK ReceiverId is not the insurer.' },
  SSEK_TX_ID_INVALID: { scope: 'document', httpStatus: 500, retryable: false, message: 'The SSEK TxId is missing or not a UUID.' },
  SSEK_TX_ID_ALREADY_RECEIVED: { scope: 'document', httpStatus: 500, retryable: false, message: 'The SSEK TxId was already received with another document.' },
  SSEK_TX_ID_NOT_FOUND: { scope: 'document', httpStatus: 500, retryable: false, message: 'No document of the sender has that SSEK TxId.' },
  SSEK_SIGNATURE_INVALID: { scope: 'document', httpStatus: 500, retryable: false, message: 'The WS-Security signature is missing, does not verify, or does not cover the body, the SSEK header and the timestamp.' },
  SSEK_TIMESTAMP_EXPIRED: { scope: 'document', httpStatus: 500, retryable: false, message: 'The signed WS-Security timestamp is too old, expired or in the future.' },
  SSEK_NOT_AUTHENTICATED: { scope: 'document', httpStatus: 500, retryable: false, message: 'The sender is registered for SSEK without a client certificate or a signing certificate.' },

  // System.
  DATABASE_UNAVAILABLE: { scope: 'system', httpStatus: 503, retryable: true, message: 'The database cannot be reached.' },
  QUEUE_UNAVAILABLE: { scope: 'system', httpStatus: 503, retryable: true, message: 'The queue (Redis) cannot be reached.' },
  DATA_FOLDER_IN_USE: { scope: 'system', httpStatus: 503, retryable: false, message: 'Another process uses the embedded database in this data folder.' },
  DELIVERY_FAILED: { scope: 'system', httpStatus: 502, retryable: true, message: 'The response could not be delivered to the counterparty.' },
  SFTP_HOST_KEY_MISMATCH: { scope: 'system', httpStatus: 502, retryable: false, message: "The counterparty's SFTP server presented a host key other than the pinned one." },
  WAITING_FOR_PREDECESSOR: { scope: 'system', httpStatus: 409, retryable: true, message: 'An earlier document for the same agreement is not yet applied.' },
  MESSAGE_NOT_FOUND: { scope: 'system', httpStatus: 404, retryable: false, message: 'No message has that id.' },
  PERSON_NOT_FOUND: { scope: 'system', httpStatus: 404, retryable: false, message: 'The person has neither an employment nor an insurance under that agreement.' },
  MESSAGE_NOT_REPLAYABLE: { scope: 'system', httpStatus: 409, retryable: false, message: 'Only dead messages can be replayed.' },
  INSURANCE_ALREADY_ENDED: { scope: 'system', httpStatus: 409, retryable: false, message: 'The insurance has already ended.' },
  TRANSFER_VALUE_UNKNOWN: { scope: 'system', httpStatus: 409, retryable: false, message: "No custody value is reported on or before the insurance's last day, which its transfer leaflet must state." },
  TRANSFER_MONEY_ALREADY_RECORDED: { scope: 'system', httpStatus: 409, retryable: false, message: "The transfer in's money is already recorded as received." },
  PAYOUT_ALREADY_REGISTERED: { scope: 'system', httpStatus: 409, retryable: false, message: 'The insurance is already in payout.' },
  DEATH_BENEFIT_ALREADY_ORDERED: { scope: 'system', httpStatus: 409, retryable: false, message: "The death benefit has been ordered: its beneficiary can no longer be changed." },
  PAYOUT_NOT_YET_DUE: { scope: 'system', httpStatus: 422, retryable: false, message: "The first payout would be paid before the insurance's payout can begin." },
  PAYOUT_MONTH_PASSED: { scope: 'system', httpStatus: 422, retryable: false, message: 'The first payout month has passed.' },
  PAYOUT_PERIOD_NOT_OFFERED: { scope: 'system', httpStatus: 422, retryable: false, message: "The insurance's product does not offer that payout period." },
  PAYOUT_ACCOUNT_NOT_VALIDATED: { scope: 'system', httpStatus: 422, retryable: false, message: "The account is not registered and validated as the insured's." },
  PAYOUT_SIGNATORIES_MISSING: { scope: 'system', httpStatus: 422, retryable: false, message: "The organisation policyholder's company signatories or signing rule are not registered." },
  REQUEST_INVALID: { scope: 'system', httpStatus: 400, retryable: false, message: 'The request is incomplete or malformed.' },
  COUNTERPARTY_AUTHENTICATION_REQUIRED: { scope: 'system', httpStatus: 401, retryable: false, message: "The counterparty's REST credentials are missing or wrong." },
  STAFF_AUTHENTICATION_REQUIRED: { scope: 'system', httpStatus: 401, retryable: false, message: 'Staff credentials are missing or wrong.' },
  STAFF_ROLE_FORBIDDEN: { scope: 'system', httpStatus: 403, retryable: false, message: "The staff user's role may not do this: a viewer only reads." },
  STAFF_REQUEST_FORGED: { scope: 'system', httpStatus: 403, retryable: false, message: "The request did not come from the gateway's own pages (CSRF token or origin missing or wrong)." },
  API_AUTHENTICATION_REQUIRED: { scope: 'system', httpStatus: 401, retryable: false, message: 'The access token is missing, expired or not valid.' },
  API_CLIENT_INVALID: { scope: 'system', httpStatus: 401, retryable: false, message: 'The client id or secret is wrong.' },
  APPLICATION_INVALID: { scope: 'system', httpStatus: 422, retryable: false, message: 'The application breaks the product or business rules.' },
  RESOURCE_NOT_FOUND: { scope: 'system', httpStatus: 404, retryable: false, message: 'Nothing with that id is available to you.' },
  BANK_ACCOUNT_INVALID: { scope: 'system', httpStatus: 422, retryable: false, message: 'The bank account is not a Swedish bank account.' },
  WITHDRAWAL_NOT_ALLOWED: { scope: 'system', httpStatus: 422, retryable: false, message: 'The insurance allows no withdrawal.' },
  WITHDRAWAL_AMOUNT_OUT_OF_BOUNDS: { scope: 'system', httpStatus: 422, retryable: false, message: 'The amount is outside what can be withdrawn from the insurance today.' },
  WITHDRAWAL_ACCOUNT_NOT_VALIDATED: { scope: 'system', httpStatus: 422, retryable: false, message: "The account is not validated for the policyholder's withdrawals." },
  WITHDRAWAL_DURING_CUSTODIAN_SWITCH: { scope: 'system', httpStatus: 409, retryable: false, message: "The insurance's custodian is being switched; no withdrawal until the switch completes." },
  CUSTODIAN_SWITCH_NOT_ALLOWED: { scope: 'system', httpStatus: 422, retryable: false, message: "The insurance's custodian cannot be switched as asked." },
  SIGN_CASE_CLOSED: { scope: 'system', httpStatus: 409, retryable: false, message: 'The signatory has signed already, or the request was rejected.' },
  SIGN_ORDER_UNKNOWN: { scope: 'system', httpStatus: 422, retryable: false, message: 'No signing session with that orderRef belongs to the sign case.' },
  SIGNING_UNAVAILABLE: { scope: 'system', httpStatus: 503, retryable: true, message: 'BankID could not be asked: not configured, unreachable or refusing.' },
  TOO_MANY_REQUESTS: { scope: 'system', httpStatus: 429, retryable: true, message: 'Too many requests; wait before trying again.' },
  CONFIG_INVALID: { scope: 'system', httpStatus: 500, retryable: false, message: 'The configuration is invalid.' },
  OUTER_HANDLE_IN_TRANSACTION: { scope: 'system', httpStatus: 500, retryable: false, message: 'Code inside a database transaction used the database outside it: a defect of the gateway.' },
  INTERNAL_ERROR: { scope: 'system', httpStatus: 500, retryable: true, message: 'An unexpected error occurred in the gateway.' },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CODES, value);
}

export function describeErrorCode(code: ErrorCode): ErrorCodeInfo {
  return ERROR_CODES[code];
}
