import { afterAll, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { controlSum, paymentOrderXml, type PaymentOrderInput } from './payment-order.document.ts';
import { PaymentOrderSchema } from './payment-order.schema.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const schema = PaymentOrderSchema.load(PaymentOrderSchema.fileIn(join(ROOT, 'schemas')));
afterAll(() => schema.dispose());

const ORDER: PaymentOrderInput = {
  messageId: 'PO-01JD8Z3Q4X5Y6Z7A8B9C0D1E2F',
  createdAt: new Date('2026-06-01T05:00:00.123Z'),
  initiatingParty: { name: 'Demo Försäkring AB', organisationNumber: '5560360793' },
  debtor: { name: 'Demo Försäkring AB', iban: 'SE4550000000058398257466', bic: 'ESSESESS' },
  requestedExecutionDate: '2026-06-22',
  payments: [
    { endToEndId: 'DB-INS-100006', amount: '1234.57', creditorName: 'Eva Svensson', creditorIban: 'SE6950000000050001234560', remittance: 'Repayment protection INS-100006: 1 % of 123456.78 SEK' },
    { endToEndId: 'DB-INS-200003', amount: '100', creditorName: 'Per & Åsa <Dödsbo>', creditorIban: 'SE9880000832790000012345', remittance: 'Repayment protection INS-200003' },
  ],
};

test('a payment order is valid pain.001.001.03: CtrlSum the sum of the amounts, one credit transfer per payment, text escaped', () => {
  const xml = paymentOrderXml(ORDER);
  assert.deepEqual(schema.validate(xml), []);
  assert.equal(controlSum(ORDER.payments), '1334.57');
  assert.match(xml, /<GrpHdr>\s*<MsgId>PO-01JD8Z3Q4X5Y6Z7A8B9C0D1E2F<\/MsgId>\s*<CreDtTm>2026-06-01T05:00:00Z<\/CreDtTm>\s*<NbOfTxs>2<\/NbOfTxs>\s*<CtrlSum>1334.57<\/CtrlSum>/);
  assert.match(xml, /<PmtInfId>PO-01JD8Z3Q4X5Y6Z7A8B9C0D1E2F-1<\/PmtInfId>\s*<PmtMtd>TRF<\/PmtMtd>/);
  assert.deepEqual([...xml.matchAll(/<InstdAmt Ccy="SEK">([^<]+)</g)].map((m) => m[1]), ['1234.57', '100']);
  assert.match(xml, /<Nm>Per &amp; Åsa &lt;Dödsbo&gt;<\/Nm>/);
  assert.equal(paymentOrderXml(ORDER), xml, 'the same input gives the same bytes');
});

test('the schema refuses what the standard refuses: an unknown payment method, a lower-case IBAN country, a negative amount, a missing EndToEndId', () => {
  const xml = paymentOrderXml(ORDER);
  for (const [what, broken] of [
    ['payment method', xml.replace('<PmtMtd>TRF</PmtMtd>', '<PmtMtd>XFER</PmtMtd>')],
    ['IBAN', xml.replace('<IBAN>SE6950000000050001234560</IBAN>', '<IBAN>se6950000000050001234560</IBAN>')],
    ['amount', xml.replace('>1234.57</InstdAmt>', '>-1234.57</InstdAmt>')],
    ['EndToEndId', xml.replace(/<EndToEndId>DB-INS-100006<\/EndToEndId>/, '')],
  ] as const) {
    assert.notDeepEqual(schema.validate(broken), [], what);
  }
});

test('the writer refuses a file a bank would refuse whole: no payment, more than two decimals, a zero amount, a reused end-to-end id, a long id', () => {
  const refused = (change: Partial<PaymentOrderInput>, text: RegExp) => assert.throws(() => paymentOrderXml({ ...ORDER, ...change }), text);
  const [first, second] = ORDER.payments as [PaymentOrderInput['payments'][number], PaymentOrderInput['payments'][number]];
  refused({ payments: [] }, /no payment/);
  refused({ payments: [{ ...first, amount: '12.345' }] }, /amount 12.345 is not a positive SEK amount with at most two decimals/);
  refused({ payments: [{ ...first, amount: '0.00' }] }, /amount 0.00 is not a positive/);
  refused({ payments: [first, { ...second, endToEndId: first.endToEndId }] }, /endToEndId: each payment its own/);
  refused({ messageId: 'X'.repeat(34) }, /messageId: 1–35 characters/);
});
