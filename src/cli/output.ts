import { isGatewayError } from '../core/gateway-error.ts';

export const EXIT = { ok: 0, rejected: 1, usage: 2 } as const;

/** Prints an error for a person on stderr: the code and what to do, no stack unless DEBUG is set. */
export function reportError(error: unknown): void {
  if (isGatewayError(error)) {
    process.stderr.write(`depot-gateway: ${error.code}: ${error.message}\n`);
  } else {
    process.stderr.write(`depot-gateway: ${(error as Error)?.message ?? String(error)}\n`);
  }
  if (process.env.DEBUG) process.stderr.write(`${(error as Error)?.stack ?? ''}\n`);
}

/** A plain text table: columns padded to their widest cell. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd()).join('\n') + '\n';
}
