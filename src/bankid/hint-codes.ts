import type { RpErrorCode } from './bankid-protocol.ts';

/**
 * What a collect answer (status and hint code) or an error answer means to the person
 * signing: which step they are at, whether the order is over, whether starting a new
 * one can help, and what to tell them. BankID adds hint codes over time; an unknown
 * one is read by its status (still pending, or failed), never as success.
 * `rfa` names BankID's recommended user message for the case where there is one, so a
 * user interface can show BankID's own wording instead of ours.
 */
export type SigningStep =
  | 'openBankIdApp'
  | 'lookingForBankId'
  | 'scanTravelDocument'
  | 'confirmCall'
  | 'signInApp'
  | 'inProgress'
  | 'signed'
  | 'timedOut'
  | 'cancelledByPerson'
  | 'replacedByNewOrder'
  | 'appDidNotStart'
  | 'bankIdUnusable'
  | 'callDeclined'
  | 'appTooOld'
  | 'blockedAsRisky'
  | 'alreadyInProgress'
  | 'serviceUnavailable'
  | 'technicalError'
  | 'failed';

export interface PersonStatus {
  readonly step: SigningStep;
  /** The order is over: collecting again tells nothing new. */
  readonly finished: boolean;
  /** A new order may succeed (false while pending, and once signed). */
  readonly tryAgain: boolean;
  readonly message: string;
  readonly rfa?: string;
}

const pending = (step: SigningStep, message: string, rfa?: string): PersonStatus => ({ step, finished: false, tryAgain: false, message, ...(rfa ? { rfa } : {}) });
const failed = (step: SigningStep, tryAgain: boolean, message: string, rfa?: string): PersonStatus => ({ step, finished: true, tryAgain, message, ...(rfa ? { rfa } : {}) });

const PENDING: Readonly<Record<string, PersonStatus>> = {
  outstandingTransaction: pending('openBankIdApp', 'Open the BankID app and scan the QR code, or start the app on this device.', 'RFA1'),
  noClient: pending('openBankIdApp', 'Open the BankID app and scan the QR code, or start the app on this device.', 'RFA1'),
  started: pending('lookingForBankId', 'The BankID app has started and is looking for your BankID.'),
  userMrtd: pending('scanTravelDocument', 'Scan your passport or national identity card in the BankID app.', 'RFA23'),
  userCallConfirm: pending('confirmCall', 'Confirm in the BankID app that you are in a call with us.'),
  userSign: pending('signInApp', 'Enter your security code in the BankID app and choose Sign.', 'RFA9'),
};

const FAILED: Readonly<Record<string, PersonStatus>> = {
  expiredTransaction: failed('timedOut', true, 'The signing was not completed in time. Start again.', 'RFA8'),
  certificateErr: failed('bankIdUnusable', false, 'Your BankID cannot be used: it is blocked, revoked or too old. Get a new one from your bank.', 'RFA16'),
  userCancel: failed('cancelledByPerson', true, 'You cancelled the signing.', 'RFA6'),
  cancelled: failed('replacedByNewOrder', true, 'The signing was cancelled because another one was started for you. Start again.', 'RFA3'),
  startFailed: failed('appDidNotStart', true, 'The BankID app did not start or the QR code was not scanned in time. Start again.', 'RFA17'),
  userDeclinedCall: failed('callDeclined', true, 'You declined the call in the BankID app.'),
  notSupportedByUserApp: failed('appTooOld', true, 'Your BankID app cannot do this signing. Update the app and start again.'),
  transactionRiskBlocked: failed('blockedAsRisky', false, 'BankID stopped the signing as a risk. Contact us.'),
};

const UNKNOWN_PENDING = pending('inProgress', 'Signing in progress in the BankID app.', 'RFA21');
const UNKNOWN_FAILED = failed('failed', true, 'The signing failed. Start again.', 'RFA22');
const SIGNED = failed('signed', false, 'Signed with BankID.');

/** The person's status for a collect answer; `hintCode` is ignored once complete. */
export function personStatusOf(collect: { readonly status: 'pending' | 'failed' | 'complete'; readonly hintCode?: string }): PersonStatus {
  switch (collect.status) {
    case 'complete':
      return SIGNED;
    case 'pending':
      return lookUp(PENDING, collect.hintCode) ?? UNKNOWN_PENDING;
    case 'failed':
      return lookUp(FAILED, collect.hintCode) ?? UNKNOWN_FAILED;
    default:
      return collect.status satisfies never;
  }
}

/**
 * The person's status for an error answer. Only alreadyInProgress and the service's
 * own troubles concern the person; the rest are faults of ours (a bad request, our
 * certificate refused) that the person is told about only as a technical error.
 */
export function personStatusOfError(errorCode: RpErrorCode | (string & {})): PersonStatus {
  switch (errorCode) {
    case 'alreadyInProgress':
      return failed('alreadyInProgress', true, 'A BankID signing or login for you is already under way. Finish or cancel it in the app, then start again.', 'RFA4');
    case 'maintenance':
    case 'requestTimeout':
    case 'internalError':
      return failed('serviceUnavailable', true, 'BankID could not be reached just now. Try again in a while.', 'RFA5');
    case 'invalidParameters':
    case 'unauthorized':
    case 'notFound':
    case 'methodNotAllowed':
    case 'unsupportedMediaType':
    default:
      return failed('technicalError', false, 'A technical error stopped the signing. We have been told; try again later.', 'RFA22');
  }
}

function lookUp(table: Readonly<Record<string, PersonStatus>>, hintCode: string | undefined): PersonStatus | undefined {
  return hintCode !== undefined && Object.hasOwn(table, hintCode) ? table[hintCode] : undefined;
}
