/**
 * `npm run bench -- document-keys`: what writing the search keys costs a plan document
 * in the transaction that applies it (src/ledger/messages/document-keys.repository.ts,
 * the largest of the apply path's statements in PostgreSQL; docs/performance.md).
 *
 * A fresh PostgreSQL database, migrated, holds KEYS_MESSAGES messages (default 30,000);
 * each round records the keys of 500 documents in one transaction, as an apply round
 * does, each document naming seven employees, its agreement and its employer (nine
 * keys, as the bench documents of folder-throughput do), until every message has its
 * keys. Printed: microseconds of wall time a document, per round and their median.
 */
import { createHash } from 'node:crypto';
import { openPostgresDatabase } from '../src/ledger/postgres.database.ts';
import { migrate } from '../src/ledger/migrate.ts';
import { insertReceivedMessages, type NewMessage } from '../src/ledger/messages/messages.repository.ts';
import { recordDocumentKeys } from '../src/ledger/messages/document-keys.repository.ts';
import { createDatabase, envNumber, round, runBenchmark } from './support.ts';

const MESSAGES = Math.round(envNumber('KEYS_MESSAGES', 30_000));
const PER_TRANSACTION = 500;

/** A personnummer with a valid check digit, born 1950–1999 (the keys are stored as digits). */
function personnummer(index: number): string {
  const body = `19${50 + (index % 50)}${String(1 + (index % 12)).padStart(2, '0')}${String(1 + (index % 28)).padStart(2, '0')}${String(index % 1000).padStart(3, '0')}`;
  const digits = body.slice(2).split('').map(Number);
  const sum = digits.reduce((total, digit, position) => {
    const product = digit * (position % 2 === 0 ? 2 : 1);
    return total + Math.floor(product / 10) + (product % 10);
  }, 0);
  return `${body}${(10 - (sum % 10)) % 10}`;
}

function document(index: number) {
  return {
    header: { agreementNumber: `AGR-${1000 + (index % 600)}`, employerOrganisationNumber: '5561234567' },
    items: Array.from({ length: 7 }, (_, item) => ({ personalIdentityNumber: personnummer(index * 7 + item) })),
  };
}

await runBenchmark('document-keys', async (resources) => {
  const database = await createDatabase();
  resources.database = database;
  const db = openPostgresDatabase({ url: database.url, max: 1 });
  try {
    await migrate(db);
    const messages: NewMessage[] = Array.from({ length: MESSAGES }, (_, index) => {
      const bytes = Buffer.from(`<SalaryAdjustment n="${index}"/>`);
      return {
        id: `KEYS-${String(index).padStart(8, '0')}`, counterpartyId: 'demo-employer', channel: 'folder', externalId: `keys-${index}.xml`,
        sha256: createHash('sha256').update(bytes).digest('hex'), sizeBytes: bytes.byteLength, raw: bytes, rawLocation: null,
        status: 'received', errorCode: null, duplicateOf: null, metadata: {}, receivedAt: new Date(),
      };
    });
    for (let start = 0; start < MESSAGES; start += 2000) await insertReceivedMessages(db, messages.slice(start, start + 2000));
    const perDocument: number[] = [];
    for (let start = 0; start < MESSAGES; start += PER_TRANSACTION) {
      const batch = messages.slice(start, start + PER_TRANSACTION).map((message, offset) => ({ messageId: message.id, document: document(start + offset) }));
      const began = performance.now();
      await db.transaction((tx) => recordDocumentKeys(tx, batch));
      perDocument.push((1000 * (performance.now() - began)) / batch.length);
    }
    const { rows: [written] } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM document_keys');
    const sorted = [...perDocument].sort((a, b) => a - b);
    process.stdout.write(`[bench] document keys: ${written!.n} keys of ${MESSAGES} documents (${round(written!.n / MESSAGES)} a document), ${PER_TRANSACTION} documents a transaction\n`);
    process.stdout.write(`[bench] document keys: median ${round(sorted[Math.floor(sorted.length / 2)]!)} µs a document (first round ${round(perDocument[0]!)}, last ${round(perDocument[perDocument.length - 1]!)}, best ${round(sorted[0]!)}, worst ${round(sorted[sorted.length - 1]!)})\n`);
    return written!.n === MESSAGES * 9;
  } finally {
    await db.close();
  }
});
