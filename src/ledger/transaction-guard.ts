import { AsyncLocalStorage } from 'node:async_hooks';
import { GatewayError } from '../core/gateway-error.ts';
import type { Database } from './database.ts';

/**
 * Inside `db.transaction(work)`, `work` must use the transaction handle it is given and
 * nothing else of that database. A call on the outer handle from inside the
 * transaction's own flow — a closure that captured `db`, a helper handed the database
 * instead of `tx` — is the fault this module makes impossible to miss:
 *
 * - on the embedded database (PGlite, one connection) the outer call waits for the
 *   transaction to end, and the transaction waits for it: the process hangs for good;
 * - on PostgreSQL it takes a second pool connection while the first is held, reads
 *   what the transaction has not committed yet as missing, and under load a handful of
 *   such requests hold the whole pool.
 *
 * The transaction's flow is followed with AsyncLocalStorage: every call on the outer
 * handle made from that flow while the transaction is open throws
 * OUTER_HANDLE_IN_TRANSACTION at once, on both databases alike, so any test that walks
 * the path fails fast instead of hanging on one database and passing on the other.
 * Work the transaction starts that outlives it (a timer, a promise left running) may use
 * the database once the transaction has ended; another request's calls are of another
 * flow and are never refused.
 */
interface OpenTransaction {
  readonly database: Database;
  open: boolean;
}

const transactionFlow = new AsyncLocalStorage<OpenTransaction>();

export function guardTransactions(inner: Database): Database {
  const guarded: Database = {
    kind: inner.kind,
    query(text, params) {
      refuseInsideTransaction('query');
      return inner.query(text, params);
    },
    exec(text) {
      refuseInsideTransaction('exec');
      return inner.exec(text);
    },
    copyFrom(statement, chunks) {
      refuseInsideTransaction('copyFrom');
      return inner.copyFrom(statement, chunks);
    },
    async transaction(work) {
      refuseInsideTransaction('transaction');
      const scope: OpenTransaction = { database: guarded, open: true };
      try {
        return await transactionFlow.run(scope, () => inner.transaction(work));
      } finally {
        scope.open = false;
      }
    },
    close: () => inner.close(),
  };
  function refuseInsideTransaction(call: string): void {
    const scope = transactionFlow.getStore();
    if (scope?.open && scope.database === guarded) {
      throw new GatewayError(
        'OUTER_HANDLE_IN_TRANSACTION',
        `db.${call}() was called from inside db.transaction(); use the transaction's handle (tx) there.`,
      );
    }
  }
  return guarded;
}
