import { Catalogue } from './catalogue.ts';
import { renderMessageReference } from './message-reference.ts';
import { loadSchemaModel } from './schema-model.ts';

/** The message reference of every registered request type, in family then name order. */
export function referenceOfCatalogue(schemaFolder: string, catalogue = new Catalogue()): string {
  const entries = catalogue.names
    .map((name) => catalogue.get(name))
    .filter((type) => type !== undefined)
    .map((type) => ({ request: type.name, response: type.responseName, family: type.family }))
    .sort((a, b) => a.family.localeCompare(b.family) || a.request.localeCompare(b.request));
  return renderMessageReference(loadSchemaModel(schemaFolder), entries);
}
