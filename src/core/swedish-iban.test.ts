import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { parseBankAccount, type BankAccount } from './bank-account.ts';
import { isValidIban, isValidSwedishIban, swedishIbanOf } from './swedish-iban.ts';

const account = (clearingNumber: string, accountNumber: string, bankName: string): BankAccount => ({ clearingNumber, accountNumber, bankName, digits: `${clearingNumber}${accountNumber}` });

test('the published examples: the SWIFT IBAN registry (SEB, clearing number included) and Swedbank (five-digit clearing number 8327-9)', () => {
  // The registry's example: BBAN 500 0000005839 8257466, IBAN SE45 5000 0000 0583 9825 7466.
  assert.deepEqual(swedishIbanOf(account('5839', '8257466', 'SEB')), { ok: true, iban: 'SE4550000000058398257466' });
  // Swedbank's own example, account 8327-9, 000 001 234-5, shows the layout SE28 8000 0832 7900 0001 2345 (its
  // check digits 28 are for show: MOD 97-10 gives 98 for that BBAN). The gateway stores the clearing number
  // without its fifth digit, the mod 10 check digit of the first four, and puts it back.
  assert.deepEqual(swedishIbanOf(account('8327', '0000012345', 'Swedbank')), { ok: true, iban: 'SE9880000832790000012345' });
  assert.deepEqual(swedishIbanOf(account('8327', '12345', 'Swedbank')), { ok: true, iban: 'SE9880000832790000012345' });
});

test('the account number alone for Handelsbanken and a Nordea personkonto; clearing and account for Nordea, Swedbank 7xxx and Avanza', () => {
  const iban = (clearing: string, number: string) => {
    const reading = swedishIbanOf(account(clearing, number, 'bank'));
    assert.ok(reading.ok, `${clearing} ${number}`);
    return reading.iban;
  };
  assert.match(iban('6789', '123456789'), /^SE\d\d60000000000123456789$/);
  assert.match(iban('3300', '7001011233'), /^SE\d\d30000000007001011233$/);
  assert.match(iban('3000', '1234567'), /^SE\d\d30000000030001234567$/);
  assert.match(iban('7104', '1234567'), /^SE\d\d80000000071041234567$/);
  assert.match(iban('9550', '1234567'), /^SE\d\d95500000095501234567$/);
  for (const made of [iban('6789', '123456789'), iban('3300', '7001011233'), iban('7104', '1234567'), iban('9550', '1234567')]) {
    assert.ok(isValidSwedishIban(made), made);
  }
});

test('an account read by the bank rules gets an IBAN whose check digits hold; a series with no known IBAN-ID is refused, not guessed', () => {
  const seb = parseBankAccount('50001234560');
  assert.ok(seb.ok);
  assert.deepEqual(swedishIbanOf(seb.account), { ok: true, iban: 'SE6950000000050001234560' });
  assert.ok(isValidIban('SE6950000000050001234560'));
  assert.ok(!isValidIban('SE6850000000050001234560'), 'a check digit off by one');
  assert.ok(!isValidSwedishIban('DE89370400440532013000'), 'a valid German IBAN is not Swedish');
  assert.ok(isValidIban('DE89370400440532013000'));
  const unknown = swedishIbanOf(account('9580', '1234567', 'Aion Bank'));
  assert.deepEqual(unknown, { ok: false, problem: 'no IBAN rule is known for clearing number 9580 (Aion Bank): the insurer pays by IBAN; give an account at another bank' });
});
