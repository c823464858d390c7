import { GatewayError } from '../core/gateway-error.ts';

/**
 * Reads a secret for `hash-secret` from standard input. At a terminal it asks on stderr
 * and turns echo off (raw mode), so the secret is neither shown nor left in the
 * scroll-back; from a pipe (`printf %s "$SECRET" | depot-gateway hash-secret`) it reads
 * everything and drops one trailing line ending. Never taken as an argument: arguments
 * end up in the shell history and in `ps`.
 */
export async function readSecret(input: NodeJS.ReadStream = process.stdin, prompt: NodeJS.WriteStream = process.stderr): Promise<string> {
  const secret = input.isTTY ? await readFromTerminal(input, prompt) : (await readAll(input)).replace(/\r?\n$/, '');
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new GatewayError('REQUEST_INVALID', `The secret must have at least ${MIN_SECRET_LENGTH} characters; it has ${secret.length}.`);
  }
  return secret;
}

/** As long as the shortest password the configuration accepts for a counterparty's REST door. */
export const MIN_SECRET_LENGTH = 12;

async function readAll(input: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

function readFromTerminal(input: NodeJS.ReadStream, prompt: NodeJS.WriteStream): Promise<string> {
  prompt.write('Secret (not shown): ');
  input.setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (outcome: () => void) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      prompt.write('\n');
      outcome();
    };
    const onData = (keys: string) => {
      for (const key of keys) {
        if (key === '\r' || key === '\n') return finish(() => resolve(typed));
        // Ctrl-C and Ctrl-D: raw mode delivers them as characters instead of signals.
        if (key === '\u0003' || key === '\u0004') return finish(() => reject(new GatewayError('REQUEST_INVALID', 'No secret given.')));
        if (key === '\u007f' || key === '\b') typed = typed.slice(0, -1);
        else typed += key;
      }
    };
    input.on('data', onData);
  });
}
