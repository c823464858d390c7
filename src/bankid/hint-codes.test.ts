import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { FAILED_HINT_CODES, PENDING_HINT_CODES, RP_ERROR_STATUS, type RpErrorCode } from './bankid-protocol.ts';
import { personStatusOf, personStatusOfError, type SigningStep } from './hint-codes.ts';

type Row = [status: 'pending' | 'failed' | 'complete', hintCode: string | undefined, step: SigningStep, finished: boolean, tryAgain: boolean, rfa: string | undefined];

const table: Row[] = [
  ['pending', 'outstandingTransaction', 'openBankIdApp', false, false, 'RFA1'],
  ['pending', 'noClient', 'openBankIdApp', false, false, 'RFA1'],
  ['pending', 'started', 'lookingForBankId', false, false, undefined],
  ['pending', 'userMrtd', 'scanTravelDocument', false, false, 'RFA23'],
  ['pending', 'userCallConfirm', 'confirmCall', false, false, undefined],
  ['pending', 'userSign', 'signInApp', false, false, 'RFA9'],
  ['pending', 'somethingNewFromBankId', 'inProgress', false, false, 'RFA21'],
  ['pending', undefined, 'inProgress', false, false, 'RFA21'],
  ['failed', 'expiredTransaction', 'timedOut', true, true, 'RFA8'],
  ['failed', 'certificateErr', 'bankIdUnusable', true, false, 'RFA16'],
  ['failed', 'userCancel', 'cancelledByPerson', true, true, 'RFA6'],
  ['failed', 'cancelled', 'replacedByNewOrder', true, true, 'RFA3'],
  ['failed', 'startFailed', 'appDidNotStart', true, true, 'RFA17'],
  ['failed', 'userDeclinedCall', 'callDeclined', true, true, undefined],
  ['failed', 'notSupportedByUserApp', 'appTooOld', true, true, undefined],
  ['failed', 'transactionRiskBlocked', 'blockedAsRisky', true, false, undefined],
  ['failed', 'somethingNewFromBankId', 'failed', true, true, 'RFA22'],
  // A hint code of the other status does not cross over: a failed order is never read as pending.
  ['failed', 'userSign', 'failed', true, true, 'RFA22'],
  ['pending', 'userCancel', 'inProgress', false, false, 'RFA21'],
  // Inherited object keys are not hint codes.
  ['failed', 'toString', 'failed', true, true, 'RFA22'],
  ['complete', undefined, 'signed', true, false, undefined],
  ['complete', 'userSign', 'signed', true, false, undefined],
];

test('each status and hint code maps to the step the person is at, whether it is over and whether to start again', () => {
  for (const [status, hintCode, step, finished, tryAgain, rfa] of table) {
    const label = `${status}/${hintCode}`;
    const person = personStatusOf(hintCode === undefined ? { status } : { status, hintCode });
    assert.deepEqual({ step: person.step, finished: person.finished, tryAgain: person.tryAgain, rfa: person.rfa }, { step, finished, tryAgain, rfa }, label);
    assert.ok(person.message.length > 0, label);
  }
});

test('every hint code the protocol lists has its own row, not the fallback', () => {
  for (const hintCode of PENDING_HINT_CODES) assert.notEqual(personStatusOf({ status: 'pending', hintCode }).step, 'inProgress', hintCode);
  for (const hintCode of FAILED_HINT_CODES) assert.notEqual(personStatusOf({ status: 'failed', hintCode }).step, 'failed', hintCode);
});

test('error answers: alreadyInProgress and the service\'s own troubles are told to the person, our faults only as a technical error', () => {
  const expected: Record<RpErrorCode, SigningStep> = {
    alreadyInProgress: 'alreadyInProgress',
    invalidParameters: 'technicalError',
    unauthorized: 'technicalError',
    notFound: 'technicalError',
    methodNotAllowed: 'technicalError',
    requestTimeout: 'serviceUnavailable',
    unsupportedMediaType: 'technicalError',
    internalError: 'serviceUnavailable',
    maintenance: 'serviceUnavailable',
  };
  for (const errorCode of Object.keys(RP_ERROR_STATUS) as RpErrorCode[]) {
    const person = personStatusOfError(errorCode);
    assert.equal(person.step, expected[errorCode], errorCode);
    assert.equal(person.finished, true, errorCode);
  }
  assert.equal(personStatusOfError('alreadyInProgress').rfa, 'RFA4');
  assert.equal(personStatusOfError('maintenance').rfa, 'RFA5');
  assert.equal(personStatusOfError('aNewErrorCode').step, 'technicalError');
});
