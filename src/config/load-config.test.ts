import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { loadConfig, parseConfig } from './load-config.ts';
import { makeTestCertificates } from '../../test/support/certificates.ts';
import { writeEveryMistakeConfig } from '../../test/support/every-config-mistake.ts';

test('yield tax rates in the configuration: read per tax year, and a bad one is refused naming the setting', () => {
  const config = parseConfig({ charges: { yieldTaxRates: { 2027: { pt: '0.400', k: '1.1' } } } });
  assert.deepEqual(config.charges.yieldTaxRates, { 2027: { pt: '0.400', k: '1.1' } });
  assert.deepEqual(parseConfig({}).charges.yieldTaxRates, {});
  assert.throws(() => parseConfig({ charges: { yieldTaxRates: { 2027: { pt: '0,4' } } } }), /charges\.yieldTaxRates\.2027\.pt: a percent such as "0\.372"/);
  assert.throws(() => parseConfig({ charges: { yieldTaxRates: { next: { pt: '0.4' } } } }), /charges\.yieldTaxRates\.next: a tax year YYYY/);
});

test('an SSEK counterparty needs a client certificate (asked for through ssek.tls.clientCaPath) or a signing certificate; every such problem is named at once', () => {
  const counterparty = (id: string, organisationNumber: string, ssek: Record<string, unknown>) => ({ id, name: id, organisationNumber, role: 'employer', ssek });
  const refused = () => parseConfig({
    counterparties: [
      counterparty('bare-employer', '5561234567', {}),
      counterparty('push-only', '5590000013', { pushUrl: 'https://push.example/answers', flow: 'push' }),
      counterparty('certificate-employer', '8020000009', { clientCertificateSubject: 'hr.example' }),
    ],
  });
  assert.throws(refused, (error: Error) => {
    assert.match(error.message, /counterparties\.0\.ssek: "bare-employer" has neither a client certificate .* nor a signingCertificatePath/);
    assert.match(error.message, /counterparties\.1\.ssek: "push-only" has neither/);
    assert.match(error.message, /counterparties\.2\.ssek: "certificate-employer" is identified by a client certificate, but ssek\.tls\.clientCaPath is not set/);
    return true;
  });
  const signed = parseConfig({ counterparties: [counterparty('signing-employer', '5561234567', { signingCertificatePath: '/etc/signing.pem' })] });
  assert.equal(signed.counterparties[0]?.ssek?.signingCertificatePath, '/etc/signing.pem');
});

test('an organisation number in the configuration must pass its check digit, as one in a document must', () => {
  const counterparty = { id: 'typo-employer', name: 'Typo AB', organisationNumber: '5561234568', role: 'employer' };
  assert.throws(() => parseConfig({ counterparties: [counterparty] }), /counterparties\.0\.organisationNumber: not an organisation number: its check digit \(or its group digit\) is wrong/);
  assert.throws(() => parseConfig({ ssek: { organisationNumber: '4560360793' } }), /ssek\.organisationNumber: not an organisation number/);
  assert.equal(parseConfig({ counterparties: [{ ...counterparty, organisationNumber: '5561234567' }] }).counterparties[0]?.organisationNumber, '5561234567');
});

test('a file names every problem in one round: a mail address or SSEK SenderId given for two counterparties, and key or certificate files that cannot be read', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'dg-config-'));
  const certificates = await makeTestCertificates();
  try {
    const file = join(folder, 'gateway.yaml');
    const signing = await certificates.signing('a');
    writeFileSync(file, stringifyYaml({
      counterparties: [
        { id: 'a', name: 'A', organisationNumber: '5561234567', role: 'employer', replyBy: 'mail', mail: { addresses: ['hr@a.example'] }, ssek: { signingCertificatePath: signing.cert } },
        { id: 'b', name: 'B', organisationNumber: '5590000013', role: 'employer', replyBy: 'mail', mail: { addresses: ['HR@A.example'] },
          ssek: { senderIds: [{ type: 'ORGNR', value: '5561234567' }], signingCertificatePath: join(folder, 'b-signing.pem') } },
        { id: 'c', name: 'C', organisationNumber: '5560000001', role: 'custodian',
          sftp: { host: 'sftp.c.example', username: 'gw', privateKeyPath: join(folder, 'missing-key'), hostKeySha256: 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU', outboxPath: '/out', inboxPath: '/in' } },
      ],
      mail: { smtp: { host: 'smtp.insurer.example', from: 'gateway@insurer.example' } },
    }));
    assert.throws(() => loadConfig({ file, env: {} }), (error: Error) => {
      assert.equal(error.message, `The configuration is invalid. ${file}:\n${[
        'counterparties.1.mail.addresses: HR@A.example is also an address of "a"',
        'counterparties.1.ssek: SenderId 5561234567 (type ORGNR) also names "a"',
        `counterparties.1.ssek.signingCertificatePath: ${join(folder, 'b-signing.pem')} does not exist`,
        `counterparties.2.sftp.privateKeyPath: ${join(folder, 'missing-key')} does not exist`,
      ].map((line) => `  ${line}`).join('\n')}`);
      return true;
    });
  } finally {
    rmSync(folder, { recursive: true, force: true });
    await certificates.remove();
  }
});

test('one configuration with every kind of mistake is refused naming them all in one run, sorted by path', () => {
  const folder = mkdtempSync(join(tmpdir(), 'dg-config-'));
  try {
    const { file, problems } = writeEveryMistakeConfig(folder);
    assert.throws(() => loadConfig({ file, env: {} }), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'CONFIG_INVALID');
      assert.deepEqual(error.message.split('\n'), [`The configuration is invalid. ${file}:`, ...problems.map((problem) => `  ${problem}`)]);
      return true;
    });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test('settings that cannot work together are refused, and the same settings made whole are accepted', () => {
  const employer = (settings: Record<string, unknown>) => ({ id: 'employer', name: 'E', organisationNumber: '5561234567', role: 'employer', ...settings });
  const smtp = { host: 'smtp.insurer.example', from: 'gateway@insurer.example' };
  const imap = { host: 'imap.insurer.example', user: 'gateway', password: 'mailbox secret', authservId: 'mx.insurer.example' };
  const refused = (settings: Record<string, unknown>, path: string) => assert.throws(() => parseConfig(settings), new RegExp(`\\n  ${path.replace(/\./g, '\\.')}: `), path);
  refused({ counterparties: [employer({ replyBy: 'mail', mail: { addresses: ['hr@e.example'] } })] }, 'counterparties.0.replyBy');
  refused({ mail: { smtp }, counterparties: [employer({ replyBy: 'mail' })] }, 'counterparties.0.replyBy');
  refused({ counterparties: [employer({ replyBy: 'sftp' })] }, 'counterparties.0.replyBy');
  refused({ counterparties: [employer({ replyBy: 'ssek', ssek: { signingCertificatePath: '/etc/signing.pem', pushUrl: 'https://e.example/ssek', flow: 'push' } })] }, 'counterparties.0.replyBy');
  refused({ counterparties: [employer({ mail: { addresses: ['hr@e.example'] } })] }, 'counterparties.0.mail.addresses');
  refused({ counterparties: [employer({ ssek: { signingCertificatePath: '/etc/signing.pem', flow: 'push' } })] }, 'counterparties.0.ssek.pushUrl');
  refused({ port: 9464, metricsPort: 9464 }, 'metricsPort');
  refused({ notifications: { customerServiceAddress: 'service@insurer.example' } }, 'notifications.customerServiceAddress');
  refused({ counterparties: [employer({ folder: '/srv/shared' }), { ...employer({ folder: '/srv/shared/' }), id: 'other' }] }, 'counterparties.1.folder');
  refused({ staff: { users: [{ username: 'ops', password: 'a-long-password' }, { username: 'ops', password: 'another-password' }] } }, 'staff.users.1.username');

  const accepted = parseConfig({
    port: 0,
    metricsPort: 0,
    mail: { smtp, imap },
    notifications: { operationsAddress: 'operations@insurer.example', customerServiceAddress: 'service@insurer.example' },
    counterparties: [
      employer({ replyBy: 'mail', mail: { addresses: ['hr@e.example'] }, ssek: { signingCertificatePath: '/etc/signing.pem', pushUrl: 'https://e.example/ssek', flow: 'push' } }),
      { ...employer({ mail: { addresses: ['hr@other.example'] }, folder: '/srv/other' }), id: 'other' },
    ],
  });
  assert.deepEqual(accepted.counterparties.map((counterparty) => counterparty.replyBy), ['mail', 'request']);
  // Addresses without a mailbox still serve a counterparty answered by mail.
  assert.doesNotThrow(() => parseConfig({ mail: { smtp }, counterparties: [employer({ replyBy: 'mail', mail: { addresses: ['hr@e.example'] } })] }));
  assert.doesNotThrow(() => parseConfig({ port: 9464, metricsPort: 9465 }));
});

test('a file a setting names must hold what the setting says: a certificate, the key of its certificate, a private key without a passphrase', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'dg-config-'));
  const certificates = await makeTestCertificates();
  try {
    const other = await certificates.signing('other');
    const sshKey = join(folder, 'sftp_ed25519');
    const lockedSshKey = join(folder, 'locked_ed25519');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', sshKey]);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'a passphrase', '-f', lockedSshKey]);
    const rsaKey = join(folder, 'rsa.pem');
    writeFileSync(rsaKey, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const sftp = (privateKeyPath: string) => ({ host: 'sftp.example', username: 'gw', privateKeyPath, hostKeySha256: 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU', outboxPath: '/out', inboxPath: '/in' });
    const custodian = (id: string, organisationNumber: string, privateKeyPath: string) => ({ id, name: id, organisationNumber, role: 'custodian', sftp: sftp(privateKeyPath) });
    const file = join(folder, 'gateway.yaml');
    const write = (settings: Record<string, unknown>) => writeFileSync(file, stringifyYaml(settings));
    write({
      ssek: { tls: { certPath: certificates.server.cert, keyPath: other.key, clientCaPath: certificates.ca.key } },
      api: { signingKeyPath: rsaKey, clients: [{ id: 'firm', kind: 'advisor-firm', organisationNumber: '5565555553', publicKeyPath: `${sshKey}.pub` }] },
      counterparties: [custodian('locked', '5560000001', lockedSshKey), custodian('plain', '5567654321', sshKey)],
    });
    assert.throws(() => loadConfig({ file, env: {} }), (error: Error) => {
      const lines = error.message.split('\n').slice(1);
      assert.deepEqual(lines, [
        `  api.clients.0.publicKeyPath: ${sshKey}.pub is not a public key (PEM: EC P-256 or RSA)`,
        `  api.signingKeyPath: ${rsaKey} is not an EC P-256 private key (PEM); leave the setting out to have one made`,
        `  counterparties.0.sftp.privateKeyPath: ${lockedSshKey} has a passphrase, which nobody is there to type: store the key without one (ssh-keygen -p -N "" -f <file>)`,
        `  ssek.tls.clientCaPath: ${certificates.ca.key} is not a certificate (PEM)`,
        '  ssek.tls.keyPath: not the key of the certificate in ssek.tls.certPath',
      ]);
      return true;
    });
    write({
      ssek: { tls: { certPath: certificates.server.cert, keyPath: certificates.server.key, clientCaPath: certificates.ca.cert } },
      counterparties: [custodian('plain', '5567654321', sshKey)],
    });
    assert.equal(loadConfig({ file, env: {} }).counterparties[0]?.sftp?.privateKeyPath, sshKey);
  } finally {
    rmSync(folder, { recursive: true, force: true });
    await certificates.remove();
  }
});

test('the retention archive goes to an S3 bucket when retention.archive.s3 is set; its keys may come from the environment instead of the file', () => {
  assert.equal(parseConfig({}).retention.archive.s3, undefined, 'without it the archive stays in the data folder');
  const folder = mkdtempSync(join(tmpdir(), 'dg-config-s3-'));
  try {
    const file = join(folder, 'gateway.yaml');
    writeFileSync(file, stringifyYaml({ retention: { archive: { s3: { region: 'eu-north-1', bucket: 'insurer-archive' } } } }));
    const env = { ARCHIVE_S3_ACCESS_KEY_ID: 'AKIAEXAMPLE', ARCHIVE_S3_SECRET_ACCESS_KEY: 'secret-from-the-environment' };
    assert.deepEqual(loadConfig({ file, env }).retention.archive.s3, {
      region: 'eu-north-1', bucket: 'insurer-archive', prefix: 'depot-gateway/', forcePathStyle: false,
      accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret-from-the-environment',
    });
    assert.throws(() => loadConfig({ file, env: {} }), (error: Error) => {
      assert.match(error.message, /retention\.archive\.s3\.accessKeyId: required/);
      assert.match(error.message, /retention\.archive\.s3\.secretAccessKey: required/);
      return true;
    });
    writeFileSync(file, stringifyYaml({}));
    assert.throws(() => loadConfig({ file, env }), /retention\.archive\.s3\.bucket: required/, 'keys alone do not make a bucket');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  assert.throws(
    () => parseConfig({ retention: { archive: { s3: { region: 'eu-north-1', bucket: 'b', accessKeyId: 'a', secretAccessKey: 's', endpoint: 'ftp://store' } } } }),
    /retention\.archive\.s3\.endpoint: an http:\/\/ or https:\/\/ address/,
  );
});
