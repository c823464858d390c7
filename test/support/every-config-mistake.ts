/**
 * One configuration file holding every kind of mistake the gateway refuses — the
 * schema's (a wrong type, an unknown setting, a missing one, a check digit, an unknown
 * message type), names used twice, references to nothing, files that are missing or
 * hold the wrong thing, and settings that cannot work together — for the tests that
 * show all of them are named in one run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { Catalogue, FAMILIES } from '../../src/messages/catalogue.ts';

export interface EveryMistakeConfig {
  readonly file: string;
  /** Every problem, as the CONFIG_INVALID text lists them: sorted by path. */
  readonly problems: readonly string[];
}

export function writeEveryMistakeConfig(folder: string): EveryMistakeConfig {
  const file = join(folder, 'gateway.yaml');
  const dataDir = join(folder, 'data');
  const notACertificate = join(folder, 'not-a-certificate.pem');
  const notAKey = join(folder, 'not-a-key');
  writeFileSync(notACertificate, 'this is not a certificate\n');
  writeFileSync(notAKey, 'this is not a key either\n');
  const hostKeySha256 = 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU';
  writeFileSync(file, stringifyYaml({
    host: '0.0.0.0',
    port: 8080,
    metricsPort: 8080,
    logLevel: 'verbose',
    logLevle: 'debug',
    dataDir,
    databasePoolSize: 8,
    databaseUrl: 'postgresql://depot:change-me@db.internal:5432/depot',
    workers: { attempts: 'many' },
    staff: { users: [{ username: 'ops', password: 'a-long-plain-password' }, { username: 'ops', passwordHash: 'not-a-hash' }] },
    notifications: { operationsAddress: 'operations@insurer.example' },
    bankid: { url: 'http://appapi2.test.bankid.com', caPath: join(folder, 'missing-bankid-ca.pem') },
    bankidTestServer: true,
    api: {
      limits: { concurrentRequests: 8 },
      clients: [
        { id: 'firm', kind: 'advisor-firm', organisationNumber: '5565555553', secretHash: 'not-a-hash' },
        { id: 'firm', kind: 'custodian', counterpartyId: 'employer-b', publicKeyPath: join(folder, 'missing-client-key.pem') },
      ],
    },
    counterparties: [
      { id: 'employer-a', name: 'A', organisationNumber: '5561234568', role: 'employer', messageTypes: ['ChangeFees'], replyby: 'folder' },
      { id: 'employer-b', name: 'B', organisationNumber: '5561234567', role: 'employer', replyBy: 'mail', ssek: { clientCertificateSubject: 'hr.b.example' } },
      { id: 'employer-b', name: 'B again', organisationNumber: '5590000013', role: 'employer', mail: { addresses: ['hr@b.example'], trustedRelay: true } },
      {
        id: 'custodian-c', name: 'C', organisationNumber: '5560000001', role: 'custodian', mail: { addresses: ['HR@B.example'], trustedRelay: true },
        sftp: { host: 'sftp.c.example', username: 'gateway', privateKeyPath: join(folder, 'missing-key'), outboxPath: '/out', inboxPath: '/in' },
      },
      {
        id: 'custodian-d', name: 'D', organisationNumber: '5567654321', role: 'custodian', folder: join(dataDir, 'counterparties', 'employer-a'), replyBy: 'ssek',
        sftp: { host: 'sftp.d.example', username: 'gateway', privateKeyPath: notAKey, hostKeySha256, outboxPath: '/out', inboxPath: '/out', archivePath: '/out' },
        ssek: { flow: 'push', signingCertificatePath: notACertificate },
      },
      'a counterparty written as text',
    ],
  }));
  const exposed = 'is not allowed with host 0.0.0.0 (not a loopback address)';
  const otherReplyBy = 'choose another replyBy (folder: its outbox folder; request: the way each request came)';
  const catalogue = new Catalogue();
  const testServer = 'the local BankID test server (its page signs as anyone, its signatures prove nothing)';
  return {
    file,
    problems: [
      'api.clients.0.secretHash: a hash made by `depot-gateway hash-secret` (scrypt$…), not the secret itself',
      'api.clients.1.counterpartyId: "employer-b" is not a custodian among the counterparties',
      'api.clients.1.id: "firm" is used twice',
      `api.clients.1.publicKeyPath: ${join(folder, 'missing-client-key.pem')} does not exist`,
      'api.limits.concurrentRequests: 8 is not below databasePoolSize (8); one client could hold every database connection',
      'bankid: set certPath and keyPath (PEM), or pfxPath (PKCS#12): one of the two',
      `bankid.caPath: ${join(folder, 'missing-bankid-ca.pem')} does not exist`,
      'bankid.url: an https:// address without a path, such as https://appapi2.bankid.com',
      `bankidTestServer: ${testServer} is for the demo only (demo: true); point bankid at BankID's test service or production (docs/bankid.md)`,
      `bankidTestServer: ${testServer} ${exposed}`,
      `bankidTestServer: ${testServer} points bankid at itself: remove bankid, or set bankidTestServer: false`,
      `counterparties.0.messageTypes.0: "ChangeFees" is neither a document type (${catalogue.names.join(', ')}) nor a family (${FAMILIES.join(', ')})`,
      'counterparties.0.organisationNumber: not an organisation number: its check digit (or its group digit) is wrong',
      'counterparties.0.replyby: not a setting (config/example.yaml lists every setting)',
      `counterparties.1.replyBy: mail, but "employer-b" has no mail.addresses to send to: add them, or ${otherReplyBy}`,
      `counterparties.1.replyBy: mail, but mail.smtp is not set, so no mail leaves the gateway: set mail.smtp, or ${otherReplyBy}`,
      'counterparties.1.ssek: "employer-b" is identified by a client certificate, but ssek.tls.clientCaPath is not set, so none is asked for',
      'counterparties.2.id: "employer-b" is used twice',
      'counterparties.2.mail.addresses: no mailbox is read (mail.imap is not set), so mail from "employer-b"\'s addresses is never taken: ' +
        'set mail.imap, or remove its mail (or answer it by mail: replyBy: mail)',
      'counterparties.3.mail.addresses: HR@B.example is also an address of "employer-b"',
      'counterparties.3.mail.addresses: no mailbox is read (mail.imap is not set), so mail from "custodian-c"\'s addresses is never taken: ' +
        'set mail.imap, or remove its mail (or answer it by mail: replyBy: mail)',
      'counterparties.3.sftp.hostKeySha256: required (string)',
      `counterparties.3.sftp.privateKeyPath: ${join(folder, 'missing-key')} does not exist`,
      `counterparties.4.folder: ${join(dataDir, 'counterparties', 'employer-a')} is also the folder of "employer-a": documents in one inbox would be taken as one counterparty's; give each its own folder`,
      'counterparties.4.replyBy: ssek would leave answers to documents that came another way, and the documents the gateway sends of itself (debit files), ' +
        'waiting for a GetResponse nobody can send: use replyBy: request (SSEK requests are still answered by SSEK), or folder, sftp or mail',
      'counterparties.4.sftp.archivePath: the same folder as outboxPath: every fetched file would be fetched again; choose another folder, or leave archivePath out to delete fetched files',
      'counterparties.4.sftp.inboxPath: the same folder as outboxPath: the gateway would fetch its own answers as documents; give answers a folder of their own',
      `counterparties.4.sftp.privateKeyPath: ${notAKey} is not a private key (OpenSSH, PEM or PuTTY format)`,
      'counterparties.4.ssek.pushUrl: not set, but flow is push: set pushUrl (its SSEK endpoint for answers), or flow: sync or pull',
      `counterparties.4.ssek.signingCertificatePath: ${notACertificate} is not a certificate (PEM)`,
      'counterparties.5: Invalid input: expected object, received string',
      'databaseUrl: its password is a placeholder from the documentation; choose your own',
      'logLevel: Invalid option: expected one of "fatal"|"error"|"warn"|"info"|"debug"|"trace"|"silent"',
      'logLevle: not a setting (config/example.yaml lists every setting)',
      'metricsPort: 8080 is also port: a worker or watch process beside the api process could not listen on it; choose another port',
      'notifications.operationsAddress: nothing is mailed here, since mail.smtp is not set: set mail.smtp, or leave the address out',
      `staff.users.0.password: a plain password ${exposed}; set passwordHash (depot-gateway hash-secret)`,
      'staff.users.1.passwordHash: a hash made by `depot-gateway hash-secret` (scrypt$…), not the secret itself',
      'staff.users.1.username: "ops" is used twice',
      'workers.attempts: Invalid input: expected number, received string',
    ],
  };
}
