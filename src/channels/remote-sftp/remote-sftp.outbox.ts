import { randomBytes } from 'node:crypto';
import type SftpClient from 'ssh2-sftp-client';
import { GatewayError } from '../../core/gateway-error.ts';
import type { OutboundChannel, OutgoingDocument } from '../outbound.ts';
import type { SftpSession } from './sftp-session.ts';

/**
 * Pushes responses and outgoing documents to the inbox folder of a counterparty's own
 * SFTP server (channel 'sftp').
 *
 * Invariants:
 * - The counterparty never sees a half-written file: the body is uploaded as
 *   `.<name>.<random>.tmp` (a dot-file with a temporary suffix, which careful readers
 *   skip) and then renamed onto the final name — with OpenSSH's posix-rename, which
 *   replaces an existing file; where the server lacks it, an existing target is
 *   removed first and a plain rename follows.
 * - Delivery is at-least-once with a deterministic name: a repeat replaces the file.
 * - Any failure throws DELIVERY_FAILED (the deliver stage retries with backoff), after
 *   trying to remove the temporary file.
 */
export class RemoteSftpOutbox implements OutboundChannel {
  readonly name = 'sftp';
  readonly #targets: ReadonlyMap<string, { readonly session: SftpSession; readonly inboxPath: string }>;

  /** @param targets counterparty id → its session and the remote folder we push to. */
  constructor(targets: ReadonlyMap<string, { readonly session: SftpSession; readonly inboxPath: string }>) {
    this.#targets = new Map(targets);
  }

  async deliver(document: OutgoingDocument): Promise<{ target: string }> {
    const { counterpartyId, messageId, fileName } = document;
    const remote = this.#targets.get(counterpartyId);
    if (remote === undefined) {
      throw new GatewayError('DELIVERY_FAILED', `Counterparty ${counterpartyId} has no SFTP server set up.`, { details: { counterpartyId, messageId } });
    }
    if (fileName === '' || fileName === '.' || fileName === '..' || /[\\/\0]/.test(fileName)) {
      throw new GatewayError('DELIVERY_FAILED', `File name ${JSON.stringify(fileName)} is not a plain file name.`, { details: { counterpartyId, messageId } });
    }
    const folder = remote.inboxPath.replace(/\/$/, '');
    const target = `${folder}/${fileName}`;
    const temporary = `${folder}/.${fileName}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await remote.session.run(`upload ${target}`, async (client) => {
        await client.put(Buffer.from(document.body, 'utf8'), temporary);
        await renameOnto(client, temporary, target);
        await removeStaleTemporaries(client, folder, fileName);
      });
    } catch (error) {
      await remote.session.run(`remove ${temporary}`, (client) => client.delete(temporary, true)).catch(() => undefined);
      throw new GatewayError('DELIVERY_FAILED', `Could not push ${target} to ${counterpartyId}'s SFTP server: ${(error as Error).message}`, {
        cause: error,
        details: { counterpartyId, messageId, target },
      });
    }
    return { target: `sftp:${target}` };
  }
}

async function renameOnto(client: SftpClient, from: string, to: string): Promise<void> {
  try {
    await client.posixRename(from, to);
  } catch (error) {
    // Without the posix-rename extension, SFTP's rename refuses an existing target.
    if (!/not support|unsupported/i.test((error as Error).message)) throw error;
    if (await client.exists(to)) await client.delete(to);
    await client.rename(from, to);
  }
}

/**
 * An earlier attempt cut off mid-upload (the server went away) leaves its temporary
 * file behind, and the cleanup after it could not reach the server either: once the
 * document is in place, its leftovers go. Best effort: they are dot-files readers skip.
 */
async function removeStaleTemporaries(client: SftpClient, folder: string, fileName: string): Promise<void> {
  try {
    const prefix = `.${fileName}.`;
    for (const entry of await client.list(folder)) {
      if (entry.name.startsWith(prefix) && entry.name.endsWith('.tmp')) await client.delete(`${folder}/${entry.name}`, true);
    }
  } catch {
    // The document is delivered; a leftover temporary name harms no reader.
  }
}
