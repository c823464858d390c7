import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { ConfigProblem } from './config-problem.ts';

/**
 * The files the configuration names (keys, certificates), read at start instead of at
 * first use: each must exist, be readable by this process and hold what its setting
 * says — a certificate that is a certificate, a key that is a key (and the key of its
 * certificate). The paths are taken from the file as written wherever they are text, so
 * a missing key file is named in the same run as a typing mistake beside it.
 */
export function configFileProblems(raw: unknown): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const read = new Map<string, Readable>();
  for (const setting of fileSettings(raw)) {
    const result = readAs(setting);
    if ('problem' in result) problems.push({ path: setting.path, problem: result.problem });
    else read.set(setting.path, result);
  }
  for (const [certificatePath, keyPath] of [['ssek.tls.certPath', 'ssek.tls.keyPath'], ['bankid.certPath', 'bankid.keyPath']] as const) {
    const certificate = read.get(certificatePath)?.certificate;
    const key = read.get(keyPath)?.key;
    if (certificate && key && !certificate.checkPrivateKey(key)) problems.push({ path: keyPath, problem: `not the key of the certificate in ${certificatePath}` });
  }
  return problems;
}

type FileKind = 'certificate' | 'private key' | 'public key' | 'token signing key' | 'ssh private key' | 'pkcs12';

interface FileSetting {
  readonly path: string;
  readonly file: string;
  readonly kind: FileKind;
  /** The setting holding the passphrase of an encrypted PEM key or a PKCS#12 file, if there is one, and its value. */
  readonly passphraseSetting?: string;
  readonly passphrase?: string;
}

interface Readable {
  readonly certificate?: X509Certificate;
  readonly key?: KeyObject;
}

function fileSettings(raw: unknown): FileSetting[] {
  const settings: FileSetting[] = [];
  const add = (path: string, file: unknown, kind: FileKind, passphrase?: { setting: string; value: unknown }) => {
    if (typeof file !== 'string' || file === '') return;
    const given = typeof passphrase?.value === 'string' ? { passphrase: passphrase.value } : {};
    settings.push({ path, file, kind, ...(passphrase ? { passphraseSetting: passphrase.setting } : {}), ...given });
  };
  const top = mapping(raw);
  list(top?.counterparties).forEach((counterparty, index) => {
    add(`counterparties.${index}.sftp.privateKeyPath`, mapping(mapping(counterparty)?.sftp)?.privateKeyPath, 'ssh private key');
    add(`counterparties.${index}.ssek.signingCertificatePath`, mapping(mapping(counterparty)?.ssek)?.signingCertificatePath, 'certificate');
  });
  const tls = mapping(mapping(top?.ssek)?.tls);
  add('ssek.tls.certPath', tls?.certPath, 'certificate');
  add('ssek.tls.keyPath', tls?.keyPath, 'private key');
  add('ssek.tls.clientCaPath', tls?.clientCaPath, 'certificate');
  const bankid = mapping(top?.bankid);
  add('bankid.certPath', bankid?.certPath, 'certificate');
  const passphrase = { setting: 'bankid.passphrase', value: bankid?.passphrase };
  add('bankid.keyPath', bankid?.keyPath, 'private key', passphrase);
  add('bankid.pfxPath', bankid?.pfxPath, 'pkcs12', passphrase);
  add('bankid.caPath', bankid?.caPath, 'certificate');
  const api = mapping(top?.api);
  list(api?.clients).forEach((client, index) => add(`api.clients.${index}.publicKeyPath`, mapping(client)?.publicKeyPath, 'public key'));
  add('api.signingKeyPath', api?.signingKeyPath, 'token signing key');
  return settings;
}

function readAs(setting: FileSetting): Readable | { problem: string } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(setting.file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { problem: `${setting.file} does not exist` };
    if (code === 'EISDIR') return { problem: `${setting.file} is a folder, not a file` };
    return { problem: `${setting.file} cannot be read (${code})` };
  }
  const problem = (what: string) => ({ problem: `${setting.file} ${what}` });
  switch (setting.kind) {
    case 'certificate':
      return attempt(() => ({ certificate: new X509Certificate(bytes) })) ?? problem('is not a certificate (PEM)');
    case 'public key':
      return attempt(() => ({ key: createPublicKey(bytes) })) ?? problem('is not a public key (PEM: EC P-256 or RSA)');
    case 'private key':
      return attempt(() => ({ key: createPrivateKey(setting.passphrase === undefined ? bytes : { key: bytes, passphrase: setting.passphrase }) }))
        ?? problem(encryptedProblem(setting, bytes) ?? 'is not a private key (PEM)');
    case 'token signing key': {
      const key = attempt(() => createPrivateKey(bytes));
      return key?.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1' ? { key } : problem('is not an EC P-256 private key (PEM); leave the setting out to have one made');
    }
    case 'pkcs12':
      return attempt(() => (createSecureContext({ pfx: bytes, ...(setting.passphrase === undefined ? {} : { passphrase: setting.passphrase }) }), {}))
        ?? problem(`is not a PKCS#12 file, or ${setting.passphraseSetting ?? 'its passphrase'} does not open it`);
    case 'ssh private key': {
      const trouble = sshPrivateKeyProblem(bytes.toString('latin1'));
      return trouble === undefined ? {} : problem(trouble);
    }
    default:
      return setting.kind satisfies never;
  }
}

/**
 * What is wrong with an SSH private key file for the SFTP client: it must be a private
 * key in OpenSSH, PEM or PuTTY format without a passphrase (nobody is there to type it).
 */
function sshPrivateKeyProblem(text: string): string | undefined {
  const notAKey = 'is not a private key (OpenSSH, PEM or PuTTY format)';
  const encrypted = 'has a passphrase, which nobody is there to type: store the key without one (ssh-keygen -p -N "" -f <file>)';
  const openSsh = /-----BEGIN OPENSSH PRIVATE KEY-----([A-Za-z0-9+/=\s]+)-----END OPENSSH PRIVATE KEY-----/.exec(text);
  if (openSsh) {
    // openssh-key-v1\0, then the cipher's name as a length-prefixed string: "none" when not encrypted.
    const body = Buffer.from(openSsh[1]!.replace(/\s/g, ''), 'base64');
    const magic = 'openssh-key-v1\0';
    if (body.toString('latin1', 0, magic.length) !== magic || body.length < magic.length + 4) return notAKey;
    const cipherLength = body.readUInt32BE(magic.length);
    const cipher = body.toString('latin1', magic.length + 4, magic.length + 4 + cipherLength);
    return cipher === 'none' ? undefined : encrypted;
  }
  if (/-----BEGIN (RSA |EC |DSA )?PRIVATE KEY-----/.test(text)) return /Proc-Type: 4,ENCRYPTED/.test(text) ? encrypted : undefined;
  if (/-----BEGIN ENCRYPTED PRIVATE KEY-----/.test(text)) return encrypted;
  const putty = /^PuTTY-User-Key-File-\d+: .*\r?\nEncryption: (.*)$/m.exec(text);
  if (putty) return putty[1]?.trim() === 'none' ? undefined : encrypted;
  return notAKey;
}

/** A PEM key that needs a passphrase it was not given (or not the right one). */
function encryptedProblem(setting: FileSetting, bytes: Buffer): string | undefined {
  if (!bytes.includes('ENCRYPTED')) return undefined;
  if (setting.passphraseSetting === undefined) return 'has a passphrase, which nobody is there to type: store the key without one (openssl pkey -in <file> -out <new file>)';
  return setting.passphrase === undefined ? `has a passphrase: set ${setting.passphraseSetting}` : `does not open with ${setting.passphraseSetting}`;
}

function attempt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

function mapping(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
