/**
 * docs/messages.md is generated from the schemas: it must equal what the generator
 * renders now (run `npm run docs:messages` after changing a schema), and every
 * element and declared type of every schema must carry documentation, since the
 * page is only as good as the annotations.
 */
import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { referenceOfCatalogue } from '../src/messages/catalogue-reference.ts';
import { loadSchemaModel, resolveType, type ModelGroup, type SchemaModel } from '../src/messages/schema-model.ts';

const SCHEMAS = join(PROJECT_ROOT, 'schemas');

test('docs/messages.md is the reference generated from the current schemas', () => {
  const committed = readFileSync(join(PROJECT_ROOT, 'docs', 'messages.md'), 'utf8');
  assert.equal(committed, referenceOfCatalogue(SCHEMAS), 'docs/messages.md is stale: run `npm run docs:messages`');
});

test('the reference lists every registered request type with its fields', () => {
  const reference = referenceOfCatalogue(SCHEMAS);
  assert.match(reference, /^## ChangeFee$/m);
  assert.match(reference, /\| Item\/FeeType \| \[FeeType\]\(#feetype\) \| 1 \| Which fee changes\. \|/);
  assert.match(reference, /\| Header \| \[RequestHeader\]\(#requestheader\) \| 1 \|/);
  assert.match(reference, /^\| \[TransferLeaflet\]\(#transferleaflet\) \| TransferLeafletResponse \| insurer-transfer \|/m);
  assert.match(reference, /Schema: `schemas\/TransferLeaflet\.xsd`\. Answered with `TransferLeafletResponse`\./);
  assert.match(reference, /\| Conditions\/EarliestPayoutAge \| `xs:integer`/);
});

test('the reference lists the documents the gateway writes, with their fields', () => {
  const reference = referenceOfCatalogue(SCHEMAS);
  assert.match(reference, /^## Documents the gateway writes$/m);
  for (const document of ['DebitAccounts', 'EngagementResponse', 'InvoiceSpecification']) assert.match(reference, new RegExp(`^## ${document}$`, 'm'));
  assert.match(reference, /\| Insurance\/InsuranceType \| `xs:string` \(one of `K`, `P`, `T`\) \| 1 \|/);
  assert.match(reference, /Schema: `schemas\/EngagementResponse\.xsd`\. Sent to an advisor firm/);
  assert.match(reference, /Schema: `schemas\/InvoiceSpecification\.xsd`\. Sent to a pension-plan agreement's employer/);
});

function undocumented(model: SchemaModel): string[] {
  const missing: string[] = [];
  const visitGroup = (group: ModelGroup, path: string) => {
    for (const particle of group.particles) {
      if (particle.kind !== 'element') {
        visitGroup(particle, path);
        continue;
      }
      const here = `${path}/${particle.name}`;
      if (!particle.documentation) missing.push(here);
      const type = resolveType(model, particle.type);
      if (typeof particle.type !== 'string' && type?.kind === 'complex' && type.content) visitGroup(type.content, here);
    }
  };
  for (const [name, element] of model.elements) {
    if (!element.documentation) missing.push(name);
    const type = resolveType(model, element.type);
    if (type?.kind === 'complex' && type.content) visitGroup(type.content, name);
  }
  for (const [name, type] of model.types) {
    if (!type.documentation) missing.push(`type ${name}`);
    if (type.kind === 'complex' && type.content) visitGroup(type.content, `type ${name}`);
  }
  return missing;
}

test('every element and type of every schema is documented', () => {
  assert.deepEqual(undocumented(loadSchemaModel(SCHEMAS)), []);
});
