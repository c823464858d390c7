import { join, resolve } from 'node:path';
import type { ConfigProblem } from './config-problem.ts';
import { entries, possessive, subject } from './cross-setting-problems.ts';
import { MALFORMED, type WellFormedConfig } from './well-formed-config.ts';

/**
 * Settings that are each valid but cannot work together: the gateway would start and
 * then fail every delivery, read a mailbox nobody is mapped to, or do nothing at all
 * where the file promises something. Each is refused, saying what to do.
 */
export function unworkableSettingProblems(config: WellFormedConfig): ConfigProblem[] {
  return [
    ...replyRouteProblems(config),
    ...unreadMailProblems(config),
    ...ssekPushProblems(config),
    ...remoteFolderProblems(config),
    ...sharedFolderProblems(config),
    ...unsentNoticeProblems(config),
    ...portProblems(config),
    ...redisTargetProblems(config),
  ];
}

/** `replyBy` naming a channel the counterparty (or the gateway) has not set up: every delivery would fail. */
function replyRouteProblems(config: WellFormedConfig): ConfigProblem[] {
  const smtp = config.mail.smtp;
  return entries(config.counterparties).flatMap(({ index, settings: { id, replyBy, mail, sftp } }) => {
    const path = `counterparties.${index}.replyBy`;
    const choose = 'or choose another replyBy (folder: its outbox folder; request: the way each request came)';
    switch (replyBy) {
      case 'mail':
        return [
          ...(mail === undefined ? [{ path, problem: `mail, but ${subject(id)} has no mail.addresses to send to: add them, ${choose}` }] : []),
          ...(smtp === undefined ? [{ path, problem: `mail, but mail.smtp is not set, so no mail leaves the gateway: set mail.smtp, ${choose}` }] : []),
        ];
      case 'sftp':
        return sftp === undefined ? [{ path, problem: `sftp, but ${subject(id)} has no sftp server to push to: set its sftp, ${choose}` }] : [];
      case 'ssek':
        // The SSEK channel pushes only answers to requests that asked for push; everything
        // else it keeps for a GetResponse, which only a request's own TxId can ask for.
        return [{
          path,
          problem: 'ssek would leave answers to documents that came another way, and the documents the gateway sends of itself (debit files), waiting for a GetResponse ' +
            'nobody can send: use replyBy: request (SSEK requests are still answered by SSEK), or folder, sftp or mail',
        }];
      case 'request':
      case 'folder':
      case MALFORMED:
        return [];
      default:
        return replyBy satisfies never;
    }
  });
}

/**
 * `mail.addresses` map the senders of mail the gateway reads from its mailbox; without
 * `mail.imap` no mailbox is read, so nothing they send is ever taken. They still serve
 * a counterparty answered by mail (`replyBy: mail`).
 */
function unreadMailProblems(config: WellFormedConfig): ConfigProblem[] {
  if (config.mail.imap !== undefined) return [];
  return entries(config.counterparties).flatMap(({ index, settings: { id, mail, replyBy } }) => (mail !== undefined && mail !== MALFORMED && replyBy !== 'mail' && replyBy !== MALFORMED
    ? [{
      path: `counterparties.${index}.mail.addresses`,
      problem: `no mailbox is read (mail.imap is not set), so mail from ${possessive(id)} addresses is never taken: set mail.imap, or remove its mail (or answer it by mail: replyBy: mail)`,
    }]
    : []));
}

/** Flow push without the address to push to: every request without a <Flow> header would be refused. */
function ssekPushProblems(config: WellFormedConfig): ConfigProblem[] {
  return entries(config.counterparties).flatMap(({ index, settings: { ssek } }) => (ssek !== MALFORMED && ssek?.flow === 'push' && ssek.pushUrl === undefined
    ? [{ path: `counterparties.${index}.ssek.pushUrl`, problem: 'not set, but flow is push: set pushUrl (its SSEK endpoint for answers), or flow: sync or pull' }]
    : []));
}

/** A counterparty's own SFTP server: the folder we fetch from must not be where we put answers or fetched files. */
function remoteFolderProblems(config: WellFormedConfig): ConfigProblem[] {
  return entries(config.counterparties).flatMap(({ index, settings: { sftp } }) => {
    if (sftp === MALFORMED || sftp === undefined) return [];
    const path = `counterparties.${index}.sftp`;
    return [
      ...(sftp.inboxPath === sftp.outboxPath ? [{ path: `${path}.inboxPath`, problem: 'the same folder as outboxPath: the gateway would fetch its own answers as documents; give answers a folder of their own' }] : []),
      ...(sftp.archivePath === sftp.outboxPath ? [{ path: `${path}.archivePath`, problem: 'the same folder as outboxPath: every fetched file would be fetched again; choose another folder, or leave archivePath out to delete fetched files' }] : []),
    ];
  });
}

/** Two counterparties in one folder: a file in the inbox could not be told to be from one or the other. */
function sharedFolderProblems(config: WellFormedConfig): ConfigProblem[] {
  const dataDir = config.top.dataDir;
  const owners = new Map<string, string>();
  return entries(config.counterparties).flatMap(({ index, settings: { id, folder } }) => {
    if (id === MALFORMED || folder === MALFORMED || (folder === undefined && dataDir === MALFORMED)) return [];
    const path = resolve(folder ?? join(dataDir as string, 'counterparties', id));
    const owner = owners.get(path);
    if (owner === undefined) return (owners.set(path, id), []);
    // The same id twice: named as such.
    if (owner === id) return [];
    return [{ path: `counterparties.${index}.folder`, problem: `${path} is also the folder of "${owner}": documents in one inbox would be taken as one counterparty's; give each its own folder` }];
  });
}

/** A notice address with nothing to mail by. */
function unsentNoticeProblems(config: WellFormedConfig): ConfigProblem[] {
  if (config.mail.smtp !== undefined) return [];
  const { operationsAddress, customerServiceAddress } = config.notifications;
  return ([['notifications.operationsAddress', operationsAddress], ['notifications.customerServiceAddress', customerServiceAddress]] as const).flatMap(([path, address]) => (
    typeof address === 'string' ? [{ path, problem: 'nothing is mailed here, since mail.smtp is not set: set mail.smtp, or leave the address out' }] : []));
}

/** A worker or watch process serves its metrics on metricsPort beside the api process on port: one port cannot serve both. */
function portProblems(config: WellFormedConfig): ConfigProblem[] {
  const { port, metricsPort } = config.top;
  if (port === MALFORMED || metricsPort === MALFORMED || metricsPort === undefined || metricsPort === 0 || metricsPort !== port) return [];
  return [{ path: 'metricsPort', problem: `${metricsPort} is also port: a worker or watch process beside the api process could not listen on it; choose another port` }];
}

/** Redis named twice, by URL and as a Sentinel set: which one is meant cannot be told. */
function redisTargetProblems(config: WellFormedConfig): ConfigProblem[] {
  const { redisUrl, redis } = config.top;
  if (redisUrl === undefined || redis === undefined) return [];
  return [{ path: 'redis', problem: 'set beside redisUrl (REDIS_URL): give one of the two — redis for a Sentinel set, redisUrl for one server' }];
}
