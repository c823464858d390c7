/**
 * The insurer's 1 % of ordered death benefits in a payment order (src/calendar/death-benefit-payments.ts),
 * on the embedded database (PGlite, in memory) and on PostgreSQL: without the insurer's
 * account configured nothing is made and the payments wait; once it is, one file pays
 * every waiting one — schema-valid, CtrlSum the sum — and a second call makes none. A
 * benefit without a beneficiary, or with nothing to pay, is never in a file.
 */
import { describe, expect, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import pino from 'pino';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import type { Database } from '../src/ledger/database.ts';
import { seedDemoData } from '../src/demo/demo-data.ts';
import { PaymentOrderSchema } from '../src/messages/payment-order.schema.ts';
import { orderInsurerShares } from '../src/calendar/death-benefit-payments.ts';
import { onBothDatabases } from './support/harness.ts';

const INSURER_ACCOUNT = { name: 'Test Försäkring AB', iban: 'SE4550000000058398257466', bic: 'ESSESESS' };
const log = pino({ level: 'silent' });
const run = { runKey: '2026-06', runDate: '2026-06-01', now: new Date('2026-06-01T05:00:00Z') };

/** On the embedded database and on PostgreSQL, each with the demo data. */
const onBoth = (work: (db: Database) => Promise<void>) => onBothDatabases(work, seedDemoData);

describe('the payment order for the insurer\'s 1 %, on the embedded database and on PostgreSQL', () => {
  test('waits without the insurer\'s account; then one valid file pays every waiting benefit, once', async () => {
    await onBoth(async (db) => {
      // Three death benefits the June run ordered: two with a beneficiary, one whose value was so small its 1 % is nothing;
      // and one recorded but not ordered (no beneficiary yet).
      await db.exec(`
        INSERT INTO insurances (insurance_number, agreement_number, insured_pin, product_code, start_date, policyholder, custody_account) VALUES
          ('INS-300001', 'AGR-1001', '198002021239', 'KF-DEPA', '2022-01-01', '5561234567', 'DEPA-300001'),
          ('INS-300002', 'AGR-1001', '199003031235', 'KF-DEPA', '2022-01-01', '5561234567', 'DEPA-300002'),
          ('INS-300003', 'AGR-1001', '197607151235', 'KF-DEPA', '2022-01-01', '5561234567', 'DEPA-300003'),
          ('INS-300004', 'AGR-1001', '197001011233', 'KF-DEPA', '2022-01-01', '5561234567', 'DEPA-300004');
        INSERT INTO custody_accounts (account_number, custodian_id, opened_on) VALUES
          ('DEPA-300001', 'demo-custodian', '2022-01-01'), ('DEPA-300002', 'demo-custodian', '2022-01-01'),
          ('DEPA-300003', 'demo-custodian', '2022-01-01'), ('DEPA-300004', 'demo-custodian', '2022-01-01');
        INSERT INTO debit_runs (run_key, custodian_id, kind, run_date, created_at) VALUES ('2026-06', 'demo-custodian', 'payout', '2026-06-01', now());
        INSERT INTO death_benefits (insurance_number, death_date, custody_value, value_as_of, insurer_amount, recorded_by, recorded_at,
                                    beneficiary_name, beneficiary_account, beneficiary_recorded_by, beneficiary_recorded_at, run_key, custodian_id, sell_by, pay_by) VALUES
          ('INS-300001', '2026-05-18', 123456.78, '2026-05-15', 1234.57, 'staff:test', now(), 'Eva Svensson', '50001234560', 'staff:test', now(), '2026-06', 'demo-custodian', '2026-06-10', '2026-06-22'),
          ('INS-300002', '2026-05-18', 9999.95, '2026-05-15', 100.00, 'staff:test', now(), 'Per Persson', '6000123456789', 'staff:test', now(), '2026-06', 'demo-custodian', '2026-06-10', '2026-06-22'),
          ('INS-300003', '2026-05-18', 0.40, '2026-05-15', 0.00, 'staff:test', now(), 'Nils Nilsson', '50001234560', 'staff:test', now(), '2026-06', 'demo-custodian', '2026-06-10', '2026-06-22');
        INSERT INTO death_benefits (insurance_number, death_date, custody_value, value_as_of, insurer_amount, recorded_by, recorded_at) VALUES
          ('INS-300004', '2026-05-18', 5000.00, '2026-05-15', 50.00, 'staff:test', now())`);

      const none = await db.transaction((tx) => orderInsurerShares(tx, { insurerOrganisationNumber: '5560360793', log }, run));
      assert.equal(none, undefined, 'no insurer account: nothing made');
      assert.deepEqual((await db.query('SELECT count(*)::int AS n FROM payment_orders')).rows, [{ n: 0 }]);

      const made = await db.transaction((tx) => orderInsurerShares(tx, { insurerAccount: INSURER_ACCOUNT, insurerOrganisationNumber: '5560360793', log }, run));
      assert.ok(made);
      assert.deepEqual([made.transactions, made.controlSum, made.requestedExecutionDate, made.insuranceNumbers], [2, '1334.57', '2026-06-22', ['INS-300001', 'INS-300002']]);
      const { rows } = await db.query<{ body: Buffer | Uint8Array }>('SELECT body FROM payment_orders WHERE payment_order_id = $1', [made.paymentOrderId]);
      const xml = Buffer.from(rows[0]!.body).toString('utf8');
      const schema = PaymentOrderSchema.load(PaymentOrderSchema.fileIn(join(PROJECT_ROOT, 'schemas')));
      try {
        assert.deepEqual(schema.validate(xml), []);
      } finally {
        schema.dispose();
      }
      assert.match(xml, new RegExp(`<MsgId>${made.paymentOrderId}</MsgId>[\\s\\S]*<CtrlSum>1334.57</CtrlSum>`));
      const paid = await db.query('SELECT insurance_number, payment_order_id IS NOT NULL AS paid, end_to_end_id FROM death_benefits WHERE insurance_number LIKE $1 ORDER BY 1', ['INS-3%']);
      expect(paid.rows).toEqual([
        { insurance_number: 'INS-300001', paid: true, end_to_end_id: 'DB-INS-300001' },
        { insurance_number: 'INS-300002', paid: true, end_to_end_id: 'DB-INS-300002' },
        { insurance_number: 'INS-300003', paid: false, end_to_end_id: null },
        { insurance_number: 'INS-300004', paid: false, end_to_end_id: null },
      ]);

      const again = await db.transaction((tx) => orderInsurerShares(tx, { insurerAccount: INSURER_ACCOUNT, insurerOrganisationNumber: '5560360793', log }, run));
      assert.equal(again, undefined, 'a second call makes no second file');
      assert.deepEqual((await db.query('SELECT count(*)::int AS n FROM payment_orders')).rows, [{ n: 1 }]);
    });
  }, 300_000);
});
