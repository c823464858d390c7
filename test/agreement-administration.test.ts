/**
 * Documents about the agreement itself, applied one after the other on one ledger:
 * a category added with AddCategories can be given to employees by a later
 * ChangeCategory from its ValidFrom (not before), and a contact person added by one
 * UpdateAdministrators document is removed by a later one, whose removal ends the
 * row the first one wrote instead of deleting it.
 */
import { describe, test, beforeAll, afterAll } from '@jest/globals';
import assert from 'node:assert/strict';
import { DEMO } from '../src/demo/demo-data.ts';
import { startTestGateway, type TestGateway } from './support/harness.ts';
import { planDocument } from './support/documents.ts';


const HANNA = '199506151233';

describe('agreement administration across documents', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ roles: [], inline: true });
  });
  afterAll(() => gateway.destroy());

  /** Receives a document and gives its response body and the gateway's message id. */
  async function send(name: string, xml: string): Promise<{ body: string; messageId: string }> {
    const receipt = await gateway.intake.receive({
      channel: 'cli', counterpartyId: 'demo-employer', externalId: name, receivedAt: new Date(),
      content: { bytes: Buffer.from(xml) }, metadata: { fileName: `${name}.xml` },
    });
    const { rows } = await gateway.deps.db.query<{ body: string }>('SELECT body FROM responses WHERE message_id = $1', [receipt.messageId]);
    assert.ok(rows[0], `${name} has a response`);
    return { body: rows[0].body, messageId: receipt.messageId };
  }

  test('a category added by AddCategories can be given to an employee from its ValidFrom', async () => {
    const added = await send('add', planDocument('AddCategories', 'SEQ-AC', [
      '    <CategoryCode>NY</CategoryCode>\n    <Name>Nyanställda</Name>\n    <ValidFrom>2027-01-01</ValidFrom>\n    <PremiumPercent>3.5</PremiumPercent>\n',
    ]));
    assert.match(added.body, /<Status>Accepted<\/Status>\n {2}<\/Header>/, added.body);

    const changed = await send('change', planDocument('ChangeCategory', 'SEQ-CC', [
      `    <PersonalIdentityNumber>${DEMO.persons.anna}</PersonalIdentityNumber>\n    <EffectiveDate>2026-12-31</EffectiveDate>\n    <CategoryCode>NY</CategoryCode>\n`,
      `    <PersonalIdentityNumber>${DEMO.persons.anna}</PersonalIdentityNumber>\n    <EffectiveDate>2027-01-01</EffectiveDate>\n    <CategoryCode>NY</CategoryCode>\n`,
    ]));
    assert.match(changed.body, /<Code>CATEGORY_UNKNOWN<\/Code>\n\s*<Text>Category NY \(Nyanställda\) of agreement AGR-1001 is valid from 2027-01-01, after the effective date 2026-12-31\.<\/Text>/);
    assert.match(changed.body, /<ItemId>SEQ-CC-2<\/ItemId>\n\s*<Status>Accepted<\/Status>/);
    const { rows } = await gateway.deps.db.query<{ category_code: string; effective_date: string }>(
      `SELECT c.category_code, c.effective_date::text AS effective_date FROM employment_categories c JOIN employments e ON e.id = c.employment_id
        WHERE e.personal_identity_number = $1 ORDER BY c.effective_date, c.id`,
      [DEMO.persons.anna],
    );
    assert.deepEqual(rows, [{ category_code: 'TJM', effective_date: '2020-01-01' }, { category_code: 'NY', effective_date: '2027-01-01' }]);
  });

  test('a contact added by one document is removed by a later one, and the row stays with its last day', async () => {
    const added = await send('add-contact', planDocument('UpdateAdministrators', 'SEQ-UA1', [
      `    <PersonalIdentityNumber>${HANNA}</PersonalIdentityNumber>\n    <Add>\n      <Name>Hanna Holm</Name>\n      <Role>CaseHandler</Role>\n      <ValidFrom>2026-12-01</ValidFrom>\n    </Add>\n`,
    ]));
    assert.match(added.body, /<Status>Accepted<\/Status>\n {2}<\/Header>/, added.body);
    const removed = await send('remove-contact', planDocument('UpdateAdministrators', 'SEQ-UA2', [
      `    <PersonalIdentityNumber>${HANNA}</PersonalIdentityNumber>\n    <Remove>\n      <Role>CaseHandler</Role>\n      <ValidTo>2027-03-31</ValidTo>\n    </Remove>\n`,
      `    <PersonalIdentityNumber>${HANNA}</PersonalIdentityNumber>\n    <Remove>\n      <Role>CaseHandler</Role>\n      <ValidTo>2027-04-30</ValidTo>\n    </Remove>\n`,
    ]));
    assert.match(removed.body, /<ItemId>SEQ-UA2-2<\/ItemId>\n\s*<Status>Rejected<\/Status>\n\s*<Code>ADMINISTRATOR_UNKNOWN<\/Code>\n\s*<Text>[^<]*already set to 2027-03-31/, 'a second removal finds no current role');
    const { rows } = await gateway.deps.db.query<{ valid_from: string; valid_to: string | null; message_id: string; ended_by_message: string | null }>(
      `SELECT valid_from::text AS valid_from, valid_to::text AS valid_to, message_id, ended_by_message FROM agreement_contacts WHERE personal_identity_number = $1`,
      [HANNA],
    );
    assert.deepEqual(rows, [{ valid_from: '2026-12-01', valid_to: '2027-03-31', message_id: added.messageId, ended_by_message: removed.messageId }]);
  });
});
