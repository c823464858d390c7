/**
 * The yardstick of `npm run bench -- folder-throughput` (issue 33): the simplest code
 * that takes the same SalaryAdjustment documents from the employer's inbox to a
 * response file in its outbox through libxml2 (libxml2-wasm), BullMQ and PostgreSQL,
 * with no guarantee beyond "each file answered" — no dedupe of message ids, no order
 * per agreement, no domain rule, no message store, no hand-off between stages.
 *
 * A file renamed into the inbox is read, validated against SalaryAdjustment.xsd and
 * put on one BullMQ job with its text; a worker (16 at a time, as the gateway's apply
 * stage) inserts one row into bare_messages, writes
 * `<request stem>.<row id>.SalaryAdjustmentResponse.xml` (the gateway's name pattern and
 * response shape, so the benchmark measures both alike) under a temporary dot-name and
 * renames it, then deletes the inbox file. A document the schema refuses is answered
 * Rejected at once, without a job or a row, so the rows are the accepted documents.
 *
 * It shares nothing with the gateway's code, only the schemas folder. Run as its own
 * process (startBarePipeline in bare-pipeline.process.ts): DATABASE_URL, REDIS_URL, QUEUE_PREFIX,
 * INBOX, OUTBOX, CONCURRENCY (16); prints `ready` once it watches the inbox.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, watch } from 'node:fs';
import { mkdir, readFile, readdir, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { ParseOption, XmlBufferInputProvider, XmlDocument, XmlLibError, XsdValidator, xmlRegisterInputProvider } from 'libxml2-wasm';
import pg from 'pg';

const ROOT = 'SalaryAdjustment';
const RESPONSE = `${ROOT}Response`;
const NAMESPACE = 'urn:se:depot-gateway:v1';
const SCHEMAS = join(dirname(fileURLToPath(import.meta.url)), '..', 'schemas');

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

const inbox = required('INBOX');
const outbox = required('OUTBOX');
const concurrency = Number(process.env.CONCURRENCY ?? 16);

/** No network, no external entities: the gateway's safe settings, which cost nothing. */
const PARSE_OPTIONS = ParseOption.XML_PARSE_NONET | ParseOption.XML_PARSE_NO_XXE;

// libxml2-wasm reads no file itself: the schema's include of Types.xsd is handed to it
// from memory, under the path the include resolves to.
const typesPath = join(SCHEMAS, 'Types.xsd');
xmlRegisterInputProvider(new XmlBufferInputProvider({ [typesPath]: readFileSync(typesPath) }));
const schemaPath = join(SCHEMAS, `${ROOT}.xsd`);
const validator = XsdValidator.fromDoc(XmlDocument.fromBuffer(readFileSync(schemaPath), { url: schemaPath, option: PARSE_OPTIONS }));

interface Verdict {
  readonly errors: readonly string[];
  readonly inResponseTo: string | undefined;
  readonly itemIds: readonly string[];
}

/** The document's schema errors (none when valid), and the ids its response echoes. */
function validate(text: string): Verdict {
  let document: XmlDocument;
  try {
    document = XmlDocument.fromString(text, { option: PARSE_OPTIONS });
  } catch (error) {
    return { errors: [(error as Error).message.trim()], inResponseTo: undefined, itemIds: [] };
  }
  try {
    validator.validate(document);
    const ns = { d: NAMESPACE };
    return {
      errors: [],
      inResponseTo: document.get(`/d:${ROOT}/d:Header/d:MessageId`, ns)?.content,
      itemIds: document.find(`/d:${ROOT}/d:Item/d:ItemId`, ns).map((node) => node.content),
    };
  } catch (error) {
    if (error instanceof XmlLibError) {
      const errors = error.details.map((detail) => detail.message.trim());
      return { errors: errors.length > 0 ? errors : [error.message.trim()], inResponseTo: undefined, itemIds: [] };
    }
    throw error;
  } finally {
    document.dispose();
  }
}

const escapeXml = (text: string) => text.replace(/[<>&"]/g, (char) => `&#${char.charCodeAt(0)};`);

/** A SalaryAdjustmentResponse as the gateway writes one: the header, then one result per item or the errors. */
function response(messageId: string, inResponseTo: string | undefined, verdict: Verdict): string {
  const status = verdict.errors.length > 0 ? 'Rejected' : 'Accepted';
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<${RESPONSE} xmlns="${NAMESPACE}">`,
    '  <Header>',
    `    <GatewayMessageId>${messageId}</GatewayMessageId>`,
    ...(inResponseTo === undefined ? [] : [`    <InResponseTo>${escapeXml(inResponseTo)}</InResponseTo>`]),
    `    <CreatedAt>${new Date().toISOString()}</CreatedAt>`,
    `    <Status>${status}</Status>`,
    '  </Header>',
    ...verdict.itemIds.map((itemId) => `  <Item>\n    <ItemId>${escapeXml(itemId)}</ItemId>\n    <Status>Accepted</Status>\n  </Item>`),
    ...verdict.errors.map((text) => `  <Error>\n    <Code>SCHEMA_INVALID</Code>\n    <Text>${escapeXml(text.slice(0, 1000))}</Text>\n  </Error>`),
    `</${RESPONSE}>`,
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * Files picked up and not yet deleted: fs.watch reports a name more than once (the
 * rename, a change) and the first listing may find it too; each file is answered once.
 */
const picked = new Set<string>();

/** Writes the response under a temporary dot-name and renames it, so no reader sees half a file; then deletes the request. */
async function answer(fileName: string, messageId: string, verdict: Verdict): Promise<void> {
  const final = `${fileName.replace(/\.xml$/i, '')}.${messageId}.${RESPONSE}.xml`;
  const temporary = join(outbox, `.${final}.tmp`);
  await writeFile(temporary, response(messageId, verdict.inResponseTo, verdict));
  await rename(temporary, join(outbox, final));
  await unlink(join(inbox, fileName));
  picked.delete(fileName);
}

interface BareJob {
  readonly fileName: string;
  readonly body: string;
  readonly receivedAt: string;
  readonly verdict: Verdict;
}

const pool = new pg.Pool({ connectionString: required('DATABASE_URL'), max: 20 });
await pool.query('CREATE TABLE IF NOT EXISTS bare_messages (id bigserial PRIMARY KEY, file_name text NOT NULL, body text NOT NULL, received_at timestamptz NOT NULL)');
await mkdir(inbox, { recursive: true });
await mkdir(outbox, { recursive: true });

const connection = new Redis(required('REDIS_URL'), { maxRetriesPerRequest: null });
const prefix = required('QUEUE_PREFIX');
const queue = new Queue<BareJob>('bare', { connection, prefix });
const worker = new Worker<BareJob>(
  'bare',
  async (job) => {
    const { fileName, body, receivedAt, verdict } = job.data;
    const { rows } = await pool.query<{ id: string }>(
      'INSERT INTO bare_messages (file_name, body, received_at) VALUES ($1, $2, $3) RETURNING id',
      [fileName, body, receivedAt],
    );
    await answer(fileName, rows[0]!.id, verdict);
  },
  { connection, prefix, concurrency },
);
// A failed job leaves its file unanswered: said on stderr, not retried (no guarantees here).
worker.on('failed', (job, error) => process.stderr.write(`bare pipeline: ${job?.data.fileName ?? 'a job'} failed: ${error.message}\n`));
worker.on('error', (error) => process.stderr.write(`bare pipeline: ${error.message}\n`));
await worker.waitUntilReady();

async function pickUp(fileName: string): Promise<void> {
  if (fileName.startsWith('.') || fileName.endsWith('.tmp') || picked.has(fileName)) return;
  picked.add(fileName);
  let body: string;
  try {
    body = await readFile(join(inbox, fileName), 'utf8');
  } catch (error) {
    picked.delete(fileName);
    // Gone already (the event of its own deletion) or not a file.
    if (['ENOENT', 'EISDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return;
    throw error;
  }
  const receivedAt = new Date().toISOString();
  const verdict = validate(body);
  if (verdict.errors.length > 0) {
    await answer(fileName, randomUUID(), verdict);
    return;
  }
  await queue.add(ROOT, { fileName, body, receivedAt, verdict }, { removeOnComplete: true, removeOnFail: true });
}

/** An unexpected error ends the process, so the benchmark reports it rather than waiting for answers. */
function fail(error: unknown): void {
  process.stderr.write(`bare pipeline: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
}

const watcher = watch(inbox, (_event, fileName) => {
  if (fileName) pickUp(fileName.toString()).catch(fail);
});
const listInbox = async () => {
  for (const fileName of await readdir(inbox)) pickUp(fileName).catch(fail);
};
await listInbox();
// The system drops change notifications when many come at once (a burst of thousands of
// renames): a listing every second finds what they missed, as the gateway's every 5 s does.
const rescan = setInterval(() => listInbox().catch(fail), 1000);
process.stdout.write('ready\n');

process.once('SIGTERM', () => {
  clearInterval(rescan);
  watcher.close();
  worker.close()
    .then(() => queue.close())
    .then(() => connection.quit())
    .then(() => pool.end())
    .then(() => process.exit(0), fail);
});
