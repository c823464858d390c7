import { describe, expect, test } from '@jest/globals';
import { confirmationDecision, isOpenSwitch, moveComplete, switchRegistrationProblems, switchReportDays, switchStalled, switchWaitReason } from './custodian-switch.rules.ts';

const custodians = new Set(['demo-custodian', 'north-custodian']);
const registration = {
  insuranceNumber: 'INS-200001', ended: false, currentCustodian: 'demo-custodian', toCustodian: 'north-custodian', custodians, openSwitchId: undefined,
};

describe('registering a custodian switch', () => {
  test('an insurance in force may move to another configured custodian', () => {
    expect(switchRegistrationProblems(registration)).toEqual([]);
  });
  test('every reason is named: ended, a switch open, the same custodian', () => {
    const problems = switchRegistrationProblems({ ...registration, ended: true, openSwitchId: 'CS-000001', toCustodian: 'demo-custodian' });
    expect(problems.map((p) => p.code)).toEqual(['CUSTODIAN_SWITCH_NOT_ALLOWED', 'CUSTODIAN_SWITCH_NOT_ALLOWED', 'CUSTODIAN_SWITCH_NOT_ALLOWED']);
    expect(problems.map((p) => p.message).join(' ')).toMatch(/has ended.*CS-000001.*already held by demo-custodian/);
  });
  test('a custodian the insurer does not work with is refused, and a new account already in the ledger', () => {
    const problems = switchRegistrationProblems({ ...registration, toCustodian: 'unknown-bank', newAccountTaken: true });
    expect(problems).toEqual([
      { code: 'CUSTODIAN_SWITCH_NOT_ALLOWED', message: 'unknown-bank is not a custodian the insurer works with.' },
      { code: 'CUSTODY_ACCOUNT_IN_USE', message: 'The new custody account is already an account of the ledger.' },
    ]);
  });
});

describe('a confirmation from the receiving custodian', () => {
  const ordered = { switchId: 'CS-000001', status: 'ordered' as const, toCustodian: 'north-custodian', toAccount: null };
  test('confirms an ordered switch with a new account', () => {
    expect(confirmationDecision({ insuranceNumber: 'INS-200001', accountNumber: 'NC-1', switch: ordered, accountTaken: false })).toEqual({ confirm: true });
  });
  test('no open switch to the sender: CUSTODIAN_SWITCH_UNKNOWN', () => {
    expect(confirmationDecision({ insuranceNumber: 'INS-200001', accountNumber: 'NC-1', switch: undefined, accountTaken: false })).toMatchObject({ code: 'CUSTODIAN_SWITCH_UNKNOWN' });
  });
  test('not yet signed, or confirmed already: CUSTODIAN_SWITCH_NOT_ORDERED', () => {
    expect(confirmationDecision({ insuranceNumber: 'I', accountNumber: 'NC-1', switch: { ...ordered, status: 'requested' }, accountTaken: false }))
      .toEqual({ code: 'CUSTODIAN_SWITCH_NOT_ORDERED', text: 'Custodian switch CS-000001 cannot be confirmed: it is not yet signed and ordered.' });
    expect(confirmationDecision({ insuranceNumber: 'I', accountNumber: 'NC-1', switch: { ...ordered, status: 'confirmed', toAccount: 'NC-1' }, accountTaken: true }))
      .toMatchObject({ code: 'CUSTODIAN_SWITCH_NOT_ORDERED' });
  });
  test('an account in use, or another than the one named at registration: CUSTODY_ACCOUNT_IN_USE', () => {
    expect(confirmationDecision({ insuranceNumber: 'I', accountNumber: 'DEPA-100002', switch: ordered, accountTaken: true })).toMatchObject({ code: 'CUSTODY_ACCOUNT_IN_USE' });
    expect(confirmationDecision({ insuranceNumber: 'I', accountNumber: 'NC-2', switch: { ...ordered, toAccount: 'NC-1' }, accountTaken: false })).toMatchObject({ code: 'CUSTODY_ACCOUNT_IN_USE' });
    expect(confirmationDecision({ insuranceNumber: 'I', accountNumber: 'NC-1', switch: { ...ordered, toAccount: 'NC-1' }, accountTaken: true })).toEqual({ confirm: true });
  });
});

describe('the move', () => {
  test('completes only when confirmed and both custodians showed it', () => {
    expect(moveComplete({ status: 'confirmed', transferredOut: true, valueArrived: true })).toBe(true);
    expect(moveComplete({ status: 'confirmed', transferredOut: true, valueArrived: false })).toBe(false);
    expect(moveComplete({ status: 'confirmed', transferredOut: false, valueArrived: true })).toBe(false);
    expect(moveComplete({ status: 'ordered', transferredOut: true, valueArrived: true })).toBe(false);
  });
  test('open statuses', () => {
    expect(['requested', 'ordered', 'confirmed', 'completed', 'closed'].map((s) => isOpenSwitch(s as never))).toEqual([true, true, true, false, false]);
  });
  test('a run is told why the insurance waits and where it will be ordered', () => {
    expect(switchWaitReason({ switchId: 'CS-000001', fromCustodian: 'demo-custodian', toCustodian: 'north-custodian' }))
      .toBe('custodian switch CS-000001 from demo-custodian to north-custodian is open; ordered at north-custodian once it completes');
  });
});

describe('a stalled switch', () => {
  test('counts banking days after its last step: Friday 6 November 2026 + 5 banking days is Friday the 13th', () => {
    expect(switchStalled({ status: 'ordered', since: '2026-11-06', today: '2026-11-13', bankingDays: 5 })).toBe(false);
    expect(switchStalled({ status: 'ordered', since: '2026-11-06', today: '2026-11-16', bankingDays: 5 })).toBe(true);
    // A weekend adds nothing.
    expect(switchStalled({ status: 'ordered', since: '2026-11-06', today: '2026-11-15', bankingDays: 5 })).toBe(false);
  });
  test('a switch completed or closed never stalls', () => {
    expect(switchStalled({ status: 'completed', since: '2026-01-01', today: '2026-11-16', bankingDays: 5 })).toBe(false);
  });
});

describe('the report deadlines during a switch', () => {
  test('both custodians owe the days from the order through its end; one expected anyway is left out', () => {
    const dueDays = ['2026-11-26', '2026-11-27', '2026-11-30', '2026-12-01'];
    const parties = [
      { custodianId: 'demo-custodian', from: '2026-11-27', through: '2026-11-30' },
      { custodianId: 'north-custodian', from: '2026-11-27', through: '2026-11-30' },
      { custodianId: 'south-custodian', from: '2026-11-30', through: null },
    ];
    expect(switchReportDays(parties, dueDays, new Set(['demo-custodian']))).toEqual(new Map([
      ['north-custodian', ['2026-11-27', '2026-11-30']],
      ['south-custodian', ['2026-11-30', '2026-12-01']],
    ]));
  });
});
