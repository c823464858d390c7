import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createLocalCertificateAuthority, type CertificatePaths } from './local-certificate-authority.ts';

/**
 * The local BankID test server's certificates, kept in a folder of the data folder
 * (<dataDir>/bankid-test) so that a gateway configured by hand can point at the same
 * files start after start: a test CA (ca.pem), the server's certificate for 127.0.0.1
 * and localhost (server.pem), and a relying-party client certificate (relying-party.pem),
 * each with its key beside it. Made on first use and reused while they are whole:
 * each certificate issued by the CA and matching its key, and valid for at least one
 * more day; otherwise all are made again. A new set is made in a folder of its own
 * and renamed into place, so two processes starting at once never read half a set.
 */
export interface BankIdTestCertificates {
  readonly dir: string;
  readonly ca: CertificatePaths;
  readonly server: CertificatePaths;
  readonly relyingParty: CertificatePaths;
}

/** The relying party's subject CN, as BankID's test certificate has its own. */
export const TEST_RELYING_PARTY = 'depot-gateway demo relying party';
const VALID_DAYS = 365;
const DAY_MS = 24 * 60 * 60 * 1000;

export async function ensureBankIdTestCertificates(dir: string, now: Date = new Date()): Promise<BankIdTestCertificates> {
  const existing = certificatesIn(dir);
  if (await isWhole(existing, now)) return existing;
  await mkdir(dirname(dir), { recursive: true });
  const work = await mkdtemp(join(dirname(dir), `.${basename(dir)}-`));
  try {
    const authority = await createLocalCertificateAuthority(work, { commonName: 'depot-gateway BankID test CA', days: VALID_DAYS });
    await authority.issue('server', '127.0.0.1', 'server');
    await authority.issue('relying-party', TEST_RELYING_PARTY, 'client');
    await rm(dir, { recursive: true, force: true });
    await rename(work, dir);
  } catch (error) {
    await rm(work, { recursive: true, force: true });
    // Another process put a whole set in place first: use it.
    if (await isWhole(existing, now)) return existing;
    throw error;
  }
  return existing;
}

function certificatesIn(dir: string): BankIdTestCertificates {
  const paths = (name: string): CertificatePaths => ({ cert: join(dir, `${name}.pem`), key: join(dir, `${name}.key`) });
  return { dir, ca: paths('ca'), server: paths('server'), relyingParty: paths('relying-party') };
}

async function isWhole(certificates: BankIdTestCertificates, now: Date): Promise<boolean> {
  try {
    const ca = new X509Certificate(await readFile(certificates.ca.cert));
    const leaves = await Promise.all([certificates.server, certificates.relyingParty].map(async (paths) => ({
      cert: new X509Certificate(await readFile(paths.cert)),
      key: createPrivateKey(await readFile(paths.key)),
    })));
    const caKey = createPrivateKey(await readFile(certificates.ca.key));
    const lastsADay = (cert: X509Certificate) => new Date(cert.validTo).getTime() > now.getTime() + DAY_MS;
    return ca.checkPrivateKey(caKey) && lastsADay(ca) &&
      leaves.every(({ cert, key }) => cert.checkIssued(ca) && cert.verify(ca.publicKey) && cert.checkPrivateKey(key) && lastsADay(cert));
  } catch {
    return false;
  }
}
