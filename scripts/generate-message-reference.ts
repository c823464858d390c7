// Rewrites docs/messages.md from schemas/*.xsd and the catalogue.
// Usage: npm run docs:messages
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/config/load-config.ts';
import { referenceOfCatalogue } from '../src/messages/catalogue-reference.ts';

const target = join(PROJECT_ROOT, 'docs', 'messages.md');
writeFileSync(target, referenceOfCatalogue(join(PROJECT_ROOT, 'schemas')));
console.log(`wrote ${target}`);
