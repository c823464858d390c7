import { confirmationDecision, type SwitchStatus } from '../../core/custodian-switch.rules.ts';
import { addSwitchEvent, accountInLedger, lockSwitchInsurance, openNewAccount, stepSwitch } from '../../ledger/custody/custodian-switches.repository.ts';
import type { Sql } from '../../ledger/database.ts';
import type { ApplyContext, ApplyOutcome, ItemOutcome, MessageType } from '../message-type.ts';
import { childOf, childrenOf, textOf, type XmlElement } from '../xml-element.ts';

/**
 * CustodianSwitchConfirmation: the receiving custodian of a custodian switch confirms
 * the new custody account it opened for the insurance (docs/custodian-switch.md). Each
 * item (ItemId = the insurance number) is decided on its own by the pure rules
 * (core/custodian-switch.rules.ts) under the insurance's row lock; an accepted item
 * registers the account as the sender's in the ledger — so its Holdings and
 * Transactions are taken — and moves the switch from `ordered` to `confirmed` with an
 * event naming this message. A rejected item writes nothing.
 *
 * Whole document rejected: CUSTODIAN_MISMATCH (the header names another custodian than
 * the sender). Items rejected: CUSTODIAN_SWITCH_UNKNOWN, CUSTODIAN_SWITCH_NOT_ORDERED,
 * CUSTODY_ACCOUNT_IN_USE.
 */
export interface CustodianSwitchConfirmationDocument {
  readonly messageId: string;
  readonly custodianOrganisationNumber: string;
  readonly accounts: readonly { readonly insuranceNumber: string; readonly accountNumber: string; readonly openedOn: string }[];
}

export const custodianSwitchConfirmation: MessageType<CustodianSwitchConfirmationDocument> = {
  name: 'CustodianSwitchConfirmation',
  responseName: 'CustodianSwitchConfirmationResponse',
  family: 'custodian-reporting',
  read: (root) => {
    const header = childOf(root, 'Header');
    if (!header) throw new Error(`<${root.name}> has no <Header>`);
    return {
      messageId: textOf(header, 'MessageId'),
      custodianOrganisationNumber: textOf(header, 'CustodianOrganisationNumber'),
      accounts: childrenOf(root, 'Account').map((account: XmlElement) => ({
        insuranceNumber: textOf(account, 'InsuranceNumber'), accountNumber: textOf(account, 'AccountNumber'), openedOn: textOf(account, 'OpenedOn'),
      })),
    };
  },
  senderMessageId: (doc) => doc.messageId,
  orderingKey: (doc) => `custodian:${doc.custodianOrganisationNumber}`,
  apply: applyConfirmation,
};

async function applyConfirmation(context: ApplyContext, doc: CustodianSwitchConfirmationDocument): Promise<ApplyOutcome> {
  const { counterpartyId, organisationNumber } = context.sender;
  if (doc.custodianOrganisationNumber !== organisationNumber) {
    return {
      items: [],
      errors: [{ code: 'CUSTODIAN_MISMATCH', text: `The confirmation names custodian ${doc.custodianOrganisationNumber}, but it was sent by ${counterpartyId} (${organisationNumber}).` }],
    };
  }
  // A step is dated when the document that made it arrived.
  const at = (await context.openDocument()).receivedAt;
  const items: ItemOutcome[] = [];
  for (const account of doc.accounts) {
    const { tx } = context;
    await lockSwitchInsurance(tx, account.insuranceNumber);
    const open = await openSwitchTo(tx, account.insuranceNumber, counterpartyId);
    const decision = confirmationDecision({
      insuranceNumber: account.insuranceNumber, accountNumber: account.accountNumber, switch: open, accountTaken: await accountInLedger(tx, account.accountNumber),
    });
    if ('code' in decision) {
      items.push({ itemId: account.insuranceNumber, status: 'Rejected', code: decision.code, text: decision.text });
      continue;
    }
    await openNewAccount(tx, account.accountNumber, counterpartyId, account.openedOn);
    await stepSwitch(tx, open!.switchId, 'ordered', 'confirmed', { to_account: account.accountNumber, confirmed_at: at });
    await addSwitchEvent(tx, open!.switchId, 'confirmed', at, counterpartyId, `new account ${account.accountNumber} opened ${account.openedOn}`, context.messageId);
    items.push({ itemId: account.insuranceNumber, status: 'Accepted', reference: open!.switchId });
  }
  return { items, errors: [] };
}

async function openSwitchTo(tx: Sql, insuranceNumber: string, custodianId: string) {
  const { rows } = await tx.query<{ switchId: string; status: SwitchStatus; toCustodian: string; toAccount: string | null }>(
    `SELECT switch_id AS "switchId", status, to_custodian AS "toCustodian", to_account AS "toAccount"
       FROM custodian_switches WHERE insurance_number = $1 AND switch_open AND to_custodian = $2 FOR UPDATE`, [insuranceNumber, custodianId],
  );
  return rows[0];
}
