import { getMessagesWithRaw, markValidatedMany } from '../ledger/messages/messages.repository.ts';
import type { DocumentErrorOutcome, MessageType } from '../messages/message-type.ts';
import type { DocumentVerdict } from '../messages/schema-validator.ts';
import { CATALOGUE_NAMESPACE } from '../messages/catalogue-namespace.ts';
import { inspectXml } from '../messages/xml-gate.ts';
import { childOf, type XmlElement } from '../messages/xml-element.ts';
import { ReportRejected, splitReport } from '../messages/custodian-reporting/report-splitter.ts';
import { finishRejected, requestNameOf } from './finish-rejected.ts';
import type { PipelineDeps, ValidatedDocument } from './pipeline-deps.ts';

/**
 * Validate: turns a received message's bytes into a typed document, or into a
 * rejection that names every problem. Hostile and broken XML is stopped by the XML
 * gate before libxml sees it; the root element and namespace pick the schema; the
 * counterparty must be allowed to send the type; libxml2 validates against the XSD.
 * A rejection is a result (a response is stored and delivered), never a retry.
 * Idempotent: a message no longer in `received` is left alone.
 *
 * A job validates a batch: the messages are read in one query, examined one by one,
 * their schemas checked together per document type. In a worker process the valid
 * documents of types applied side by side go to the process's apply loop with their
 * typed documents in memory (deps.applyLoop: no `validated` write of their own); the
 * others are marked validated in one statement and handed to apply in one call.
 * Gives the messages that failed (a database error in a rejection's transaction, a
 * failed apply transaction of the loop), by id; the others are done.
 */
export async function validateMessages(deps: PipelineDeps, messageIds: readonly string[]): Promise<Map<string, unknown>> {
  deps.applyLoop?.expect(messageIds);
  try {
    return await validateBatch(deps, messageIds);
  } finally {
    deps.applyLoop?.settle(messageIds);
  }
}

async function validateBatch(deps: PipelineDeps, messageIds: readonly string[]): Promise<Map<string, unknown>> {
  const failures = new Map<string, unknown>();
  // The CPU work (parsing, schema validation) runs outside any transaction; the
  // status changes are guarded, so a second run of the same job changes nothing.
  // Bytes intake handed over in this process are not read back.
  const held = new Map(messageIds.flatMap((id) => {
    const raw = deps.handOff?.raw.get(id);
    return raw ? [[id, raw] as const] : [];
  }));
  const messages = await getMessagesWithRaw(deps.db, messageIds, [...held.keys()]);
  const valid: { id: string; messageType: string; orderingKey: string; documentJson: string }[] = [];
  const inMemory: ValidatedDocument[] = [];
  const rejected: string[] = [];
  const examined: { message: (typeof messages)[number]; verdict: Verdict | SchemaCheck }[] = [];
  // Validated already: an earlier run of this job died before handing them to apply.
  const handedOn = messages.flatMap((message) => (message.status === 'validated' ? [message.id] : []));
  for (const message of messages) {
    if (message.status !== 'received') continue;
    const raw = message.raw ?? held.get(message.id);
    if (raw) examined.push({ message, verdict: examine(deps, message.counterpartyId, raw) });
    else if (message.rawLocation) examined.push({ message, verdict: await examineStored(deps, message.counterpartyId, message.rawLocation) });
  }
  const verdicts = await checkSchemas(deps, examined.map((entry) => entry.verdict));
  for (const [index, { message }] of examined.entries()) {
    const verdict = verdicts[index] as Verdict;
    if (verdict.ok) {
      // Types applied side by side go to the process's apply loop as they are; the others
      // (a custodian's report, long to apply) are written validated and queued.
      if (deps.applyLoop && deps.catalogue.get(verdict.messageType)?.concurrentApply) {
        const { id, seq, counterpartyId, channel, externalId, metadata } = message;
        inMemory.push({ id, seq, counterpartyId, channel, externalId, metadata, messageType: verdict.messageType, orderingKey: verdict.orderingKey, document: verdict.document });
      } else {
        valid.push({ id: message.id, messageType: verdict.messageType, orderingKey: verdict.orderingKey, documentJson: JSON.stringify(verdict.document) });
      }
      continue;
    }
    try {
      await deps.db.transaction((tx) =>
        finishRejected(tx, {
          messageId: message.id,
          messageType: verdict.type?.name ?? null,
          responseName: verdict.type?.responseName ?? 'MessageRejected',
          inResponseTo: verdict.inResponseTo,
          requestName: requestNameOf(message),
          errors: verdict.errors,
          now: deps.clock(),
        }),
      );
      rejected.push(message.id);
      deps.metrics?.documentsFinished([{ type: verdict.type?.name, counterpartyId: message.counterpartyId, status: 'rejected' }]);
    } catch (error) {
      failures.set(message.id, error);
    }
  }
  const validated = await markValidatedMany(deps.db, valid);
  for (const id of messageIds) deps.handOff?.raw.delete(id);
  for (const { id, documentJson } of valid) if (validated.has(id)) deps.handOff?.documents.set(id, documentJson);
  await Promise.all([
    deps.scheduler.enqueue('deliver', rejected),
    deps.scheduler.enqueue('apply', [...handedOn, ...valid.map((v) => v.id).filter((id) => validated.has(id))]),
    // A failed apply transaction leaves them received: validated again by their own jobs.
    inMemory.length > 0 && deps.applyLoop?.submit(inMemory).catch((error: unknown) => {
      for (const document of inMemory) failures.set(document.id, error);
    }),
  ]);
  return failures;
}

type Verdict =
  | { ok: true; messageType: string; orderingKey: string; document: unknown }
  | { ok: false; type?: MessageType; inResponseTo?: string; errors: DocumentErrorOutcome[] };

/** A document through the XML gate and the sender's checks, still to be checked against its schema. */
interface SchemaCheck {
  readonly ok: 'schema';
  readonly type: MessageType;
  readonly root: XmlElement;
  readonly text: string;
  readonly inResponseTo: string | undefined;
}

/**
 * The schema checks of a batch, made together per document type (one schema
 * compilation for many documents: SchemaRegistry.validateMany), and each document's verdict.
 */
async function checkSchemas(deps: PipelineDeps, verdicts: readonly (Verdict | SchemaCheck)[]): Promise<Verdict[]> {
  const checks = new Map<MessageType, number[]>();
  verdicts.forEach((verdict, index) => {
    if (verdict.ok !== 'schema') return;
    const indexes = checks.get(verdict.type);
    if (indexes) indexes.push(index);
    else checks.set(verdict.type, [index]);
  });
  const results = verdicts.slice() as (Verdict | SchemaCheck)[];
  for (const [type, indexes] of checks) {
    const pending = indexes.map((index) => verdicts[index] as SchemaCheck);
    const checked = await deps.schemas.validateDocuments(pending.map((check) => check.text), type.name);
    indexes.forEach((index, position) => {
      const verdict = checked[position];
      if (!verdict) throw new Error(`schema validation gave ${checked.length} verdicts for ${pending.length} ${type.name} documents`);
      results[index] = schemaVerdict(pending[position] as SchemaCheck, verdict);
    });
  }
  return results as Verdict[];
}

function schemaVerdict(check: SchemaCheck, verdict: DocumentVerdict): Verdict {
  const { type, inResponseTo } = check;
  // libxml2 is stricter than the gate in a few corners (e.g. some character references).
  if ('unreadable' in verdict) return { ok: false, type, errors: [{ code: 'XML_MALFORMED', text: verdict.unreadable }] };
  if ('overBudgetMs' in verdict) {
    return { ok: false, type, errors: [{ code: 'SCHEMA_VALIDATION_TIMEOUT', text: `Schema validation took longer than ${verdict.overBudgetMs} ms and was stopped.` }] };
  }
  const { errors } = verdict;
  if (errors.length > 0) {
    return {
      ok: false, type, ...(inResponseTo ? { inResponseTo } : {}),
      errors: errors.map((error) => ({ code: 'SCHEMA_VIOLATION', ...error })),
    };
  }
  return accept(type, check.root);
}

function examine(deps: PipelineDeps, counterpartyId: string, raw: Uint8Array): Verdict | SchemaCheck {
  const { maxXmlDepth: maxDepth, maxAttributesPerElement, maxAttributesPerDocument } = deps.limits;
  const gate = inspectXml(raw, { maxDepth, maxAttributesPerElement, maxAttributesPerDocument });
  if (!gate.ok) {
    return { ok: false, errors: [{ code: gate.code, text: gate.text, ...(gate.line ? { line: gate.line } : {}) }] };
  }
  const { root } = gate;
  const type = root.ns === CATALOGUE_NAMESPACE ? deps.catalogue.get(root.name) : undefined;
  if (!type) {
    return {
      ok: false,
      errors: [{
        code: 'UNKNOWN_DOCUMENT_TYPE',
        text: `<${root.name}> in namespace "${root.ns}" is not a document type the gateway accepts. Known types in ${CATALOGUE_NAMESPACE}: ${deps.catalogue.names.join(', ')}.`,
        line: root.line,
        element: root.name,
      }],
    };
  }
  const inResponseTo = headerMessageId(root);
  const counterparty = deps.counterparties.get(counterpartyId);
  if (!counterparty?.allowedTypes.has(type.name)) {
    return {
      ok: false, type, ...(inResponseTo ? { inResponseTo } : {}),
      errors: [{ code: 'MESSAGE_TYPE_NOT_ALLOWED', text: `Counterparty ${counterpartyId} may not send ${type.name}.`, element: type.name }],
    };
  }
  // A streamed report's schema is checked batch by batch when it is applied.
  if (type.streamed) return accept(type, root);
  return { ok: 'schema', type, root, text: gate.text, inResponseTo };
}

function accept(type: MessageType, root: XmlElement): Verdict {
  const document = type.read(root);
  return { ok: true, messageType: type.name, orderingKey: type.orderingKey(document), document };
}

/**
 * A document kept in the document store (larger than limits.maxDocumentBytes): only a
 * streamed report may be that large. Its preamble is read as a stream and examined;
 * the rest is read when it is applied.
 */
async function examineStored(deps: PipelineDeps, counterpartyId: string, location: string): Promise<Verdict> {
  let root: XmlElement | undefined;
  try {
    for await (const chunk of splitReport(deps.documents.read(location), { recordName: 'Account', maxDepth: deps.limits.maxXmlDepth, preambleOnly: true })) {
      if (chunk.kind === 'preamble') root = chunk.preamble.root;
    }
  } catch (error) {
    if (!(error instanceof ReportRejected)) throw error;
    const { code, text, line } = error.rejection;
    return { ok: false, errors: [{ code, text, ...(line ? { line } : {}) }] };
  }
  if (!root) return { ok: false, errors: [{ code: 'DOCUMENT_EMPTY', text: 'The document has no root element.' }] };
  const type = root.ns === CATALOGUE_NAMESPACE ? deps.catalogue.get(root.name) : undefined;
  if (!type?.streamed) {
    return {
      ok: false,
      ...(type ? { type } : {}),
      errors: [{
        code: 'DOCUMENT_TOO_LARGE',
        text: `<${root.name}> documents may be at most ${deps.limits.maxDocumentBytes} bytes; only custodian reports read as a stream (${streamedNames(deps)}) may be larger.`,
      }],
    };
  }
  if (!deps.counterparties.get(counterpartyId)?.allowedTypes.has(type.name)) {
    return { ok: false, type, errors: [{ code: 'MESSAGE_TYPE_NOT_ALLOWED', text: `Counterparty ${counterpartyId} may not send ${type.name}.`, element: type.name }] };
  }
  return accept(type, root);
}

function streamedNames(deps: PipelineDeps): string {
  return deps.catalogue.names.filter((name) => deps.catalogue.get(name)?.streamed).join(', ');
}

/** The sender's MessageId when the header carries a plausible one, to echo even in a rejection. */
function headerMessageId(root: XmlElement): string | undefined {
  const header = childOf(root, 'Header');
  const id = header ? childOf(header, 'MessageId')?.text.trim() : undefined;
  return id && /^[A-Za-z0-9._:-]{1,64}$/.test(id) ? id : undefined;
}
