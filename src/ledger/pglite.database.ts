import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import type { Database } from './database.ts';

type PgliteQueryable = Pick<PGlite, 'query'>;

/**
 * Embedded PostgreSQL (PGlite, PostgreSQL compiled to WebAssembly) in a data folder.
 * It serves one process: `start` runs every role in one process for this reason.
 * Pass no folder for an in-memory database (tests).
 */
export async function openPgliteDatabase(folder?: string): Promise<Database> {
  if (folder) mkdirSync(folder, { recursive: true });
  const db = folder ? new PGlite(folder) : new PGlite();
  await db.waitReady;
  return {
    kind: 'pglite',
    async query<Row>(text: string, params?: readonly unknown[]) {
      const result = await db.query<Row>(text, params as unknown[] | undefined);
      return { rows: result.rows };
    },
    exec: async (text) => void (await db.exec(text)),
    copyFrom: (statement, chunks) => copyInto(db, statement, chunks),
    transaction: (work) =>
      db.transaction((tx) =>
        work({
          async query<Row>(text: string, params?: readonly unknown[]) {
            const result = await tx.query<Row>(text, params as unknown[] | undefined);
            return { rows: result.rows };
          },
          exec: async (text: string) => void (await tx.exec(text)),
          copyFrom: (statement: string, chunks: AsyncIterable<string>) => copyInto(tx, statement, chunks),
        }),
      ),
    close: () => db.close(),
  };
}

/**
 * PGlite reads COPY data from a blob: the chunks are gathered first. The embedded
 * database serves demos and single-machine trials, where reports are small.
 */
async function copyInto(db: PgliteQueryable, statement: string, chunks: AsyncIterable<string>): Promise<number> {
  const parts: string[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  const fromBlob = statement.replace(/\bFROM\s+STDIN\b/i, "FROM '/dev/blob'");
  const result = await db.query(fromBlob, [], { blob: new Blob(parts) });
  return result.affectedRows ?? 0;
}
