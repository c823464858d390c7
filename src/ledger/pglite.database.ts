import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import type { Database } from './database.ts';

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
    transaction: (work) =>
      db.transaction((tx) =>
        work({
          async query<Row>(text: string, params?: readonly unknown[]) {
            const result = await tx.query<Row>(text, params as unknown[] | undefined);
            return { rows: result.rows };
          },
          exec: async (text: string) => void (await tx.exec(text)),
        }),
      ),
    close: () => db.close(),
  };
}
