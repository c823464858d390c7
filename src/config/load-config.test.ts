import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { loadConfig, parseConfig } from './load-config.ts';

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

test('a file names every problem in one round: a mail address or SSEK SenderId given for two counterparties, and key or certificate files that cannot be read', () => {
  const folder = mkdtempSync(join(tmpdir(), 'dg-config-'));
  try {
    const file = join(folder, 'gateway.yaml');
    writeFileSync(file, stringifyYaml({
      counterparties: [
        { id: 'a', name: 'A', organisationNumber: '5561234567', role: 'employer', mail: { addresses: ['hr@a.example'], trustedRelay: true }, ssek: { signingCertificatePath: join(folder, 'a-signing.pem') } },
        { id: 'b', name: 'B', organisationNumber: '5590000013', role: 'employer', mail: { addresses: ['HR@A.example'], trustedRelay: true },
          ssek: { senderIds: [{ type: 'ORGNR', value: '5561234567' }], signingCertificatePath: join(folder, 'b-signing.pem') } },
        { id: 'c', name: 'C', organisationNumber: '5560000001', role: 'custodian',
          sftp: { host: 'sftp.c.example', username: 'gw', privateKeyPath: join(folder, 'missing-key'), hostKeySha256: 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU', outboxPath: '/out', inboxPath: '/in' } },
      ],
    }));
    writeFileSync(join(folder, 'a-signing.pem'), 'certificate');
    assert.throws(() => loadConfig({ file, env: {} }), (error: Error) => {
      assert.match(error.message, /counterparties\.1\.mail\.addresses: HR@A\.example is also an address of "a"/);
      assert.match(error.message, /counterparties\.1\.ssek: SenderId 5561234567 \(type ORGNR\) also names "a"/);
      assert.match(error.message, /counterparties\.1\.ssek\.signingCertificatePath: .*b-signing\.pem does not exist/);
      assert.match(error.message, /counterparties\.2\.sftp\.privateKeyPath: .*missing-key does not exist/);
      assert.doesNotMatch(error.message, /counterparties\.0\.ssek\.signingCertificatePath/);
      return true;
    });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
