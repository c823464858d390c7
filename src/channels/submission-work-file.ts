import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { IntakeReceipt } from './envelope.ts';

/**
 * Where a staff submission (`depot-gateway submit`, in-process or through the staff
 * API) larger than `limits.maxDocumentBytes` is kept while intake looks at it:
 * `<dataDir>/cli-work/`. Intake refuses such a document with DOCUMENT_TOO_LARGE and
 * records this file as the place its bytes are kept, as a folder inbox keeps an
 * oversized file in `rejected/`; a custodian's large report is copied into the
 * document store instead, and its work file goes.
 */
export const SUBMISSION_WORK_DIR = 'cli-work';

/** A new, unused path in the work folder for a submission named `name`. */
export async function newSubmissionWorkFile(dataDir: string, name: string): Promise<string> {
  const folder = resolve(dataDir, SUBMISSION_WORK_DIR);
  await mkdir(folder, { recursive: true });
  const safeName = basename(name).replace(/[^A-Za-z0-9._-]/g, '_').slice(-100) || 'document.xml';
  return join(folder, `${Date.now()}-${randomBytes(6).toString('hex')}-${safeName}`);
}

/** Removes the work file unless intake recorded it as the kept bytes of a refused document. */
export async function settleSubmissionWorkFile(path: string, receipt: IntakeReceipt | undefined): Promise<void> {
  if (receipt?.errorCode === 'DOCUMENT_TOO_LARGE') return;
  await rm(path, { force: true });
}
