import type { Sql } from './database.ts';

/**
 * Statement coalescing for apply. Apply runs the handlers of several documents at once
 * in one transaction — never two documents with the same ordering key, so no handler
 * reads what another of the same run writes — and each handler reads its facts and
 * writes its effects with statements of its own. A coalesced repository function
 * gathers the calls those handlers make in one turn of the event loop and answers them
 * all with one statement: the `findAgreement` of 200 documents is one query, not 200
 * round trips to PostgreSQL.
 *
 * Only a transaction handed out by `sharedBy` coalesces; on any other `Sql` a call is
 * its own statement at once, as a plain function would be. Should the one statement
 * fail, every call in it fails with the same error (apply then runs its documents again
 * one by one, each in a savepoint).
 */
const sharing = new WeakSet<Sql>();

/** `tx` as an `Sql` whose coalesced calls are gathered: for handlers that run at the same time. */
export function sharedBy(tx: Sql): Sql {
  const shared: Sql = {
    query: (text, params) => tx.query(text, params),
    exec: (text) => tx.exec(text),
    copyFrom: (statement, chunks) => tx.copyFrom(statement, chunks),
  };
  sharing.add(shared);
  return shared;
}

interface Gathered<Request, Result> {
  readonly requests: Request[];
  readonly waiters: { resolve(result: Result): void; reject(error: unknown): void }[];
}

/**
 * Makes a function of one request out of `run`, which answers many requests (in their
 * order) with one statement.
 */
export function coalesce<Request, Result>(
  run: (sql: Sql, requests: readonly Request[]) => Promise<readonly Result[]>,
): (sql: Sql, request: Request) => Promise<Result> {
  const gathering = new WeakMap<Sql, Gathered<Request, Result>>();
  return async (sql, request) => {
    if (!sharing.has(sql)) {
      const [result] = await run(sql, [request]);
      return result as Result;
    }
    return new Promise<Result>((resolve, reject) => {
      let gathered = gathering.get(sql);
      if (!gathered) {
        const batch: Gathered<Request, Result> = { requests: [], waiters: [] };
        gathering.set(sql, batch);
        // After this turn's microtasks: every handler that reached its call is in the batch.
        setImmediate(() => {
          gathering.delete(sql);
          run(sql, batch.requests).then(
            (results) => batch.waiters.forEach((waiter, index) => waiter.resolve(results[index] as Result)),
            (error: unknown) => batch.waiters.forEach((waiter) => waiter.reject(error)),
          );
        });
        gathered = batch;
      }
      gathered.requests.push(request);
      gathered.waiters.push({ resolve, reject });
    });
  };
}
