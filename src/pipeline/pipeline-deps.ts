import type { Logger } from 'pino';
import type { Database } from '../ledger/database.ts';
import type { Catalogue } from '../messages/catalogue.ts';
import type { SchemaValidator } from '../messages/schema-validator.ts';
import type { PipelineStage } from '../ledger/messages/messages.repository.ts';
import type { OutboundChannel } from '../channels/outbound.ts';
import type { DocumentStore } from '../ledger/messages/document-store.ts';
import type { BatchValidator } from '../messages/schema-validator.ts';
import type { CounterpartyRole } from '../config/config.schema.ts';
import type { HandOff } from './hand-off.ts';
import type { GatewayMetrics } from '../observability/gateway-metrics.ts';

/**
 * What every pipeline stage is given: the ports it may touch, passed in by the
 * composition root (app.ts). Stages are plain functions of these, so the same code
 * runs under BullMQ workers, in-process for `submit`, and in tests.
 */
export interface Counterparty {
  readonly id: string;
  readonly name: string;
  readonly organisationNumber: string;
  readonly role: CounterpartyRole;
  /** Document types (root element names) the counterparty may send. */
  readonly allowedTypes: ReadonlySet<string>;
}

export interface EnqueueOptions {
  /** One job per message (job id = message id) instead of batches: what the reconciler wants. */
  readonly separately?: boolean;
}

/** Hands message ids to the next stage: BullMQ queues in the gateway, direct calls in-process. */
export interface StageScheduler {
  /** Hands the messages on together (a batch job) unless `separately`. */
  enqueue(stage: PipelineStage, messageIds: readonly string[], options?: EnqueueOptions): Promise<void>;
  /** Enqueues again a message whose earlier job failed for good (replay after a fix). */
  requeue(stage: PipelineStage, messageId: string): Promise<void>;
}

/** A document validation has just validated, with its typed document in memory (still `received` in the store). */
export interface ValidatedDocument {
  readonly id: string;
  /** Its place in arrival order (the message store's `seq`). */
  readonly seq: number;
  readonly counterpartyId: string;
  /** The channel the request came by. */
  readonly channel: string;
  readonly externalId: string;
  readonly metadata: Record<string, unknown>;
  readonly messageType: string;
  readonly orderingKey: string;
  /** The typed document, as the type's `read` gave it (plain JSON data). */
  readonly document: unknown;
}

/**
 * Where a worker process's validation jobs hand their validated documents for apply
 * without writing them `validated` first (apply-loop.ts). The jobs say which messages
 * they are working on, so that a document behind one of them waits for it.
 */
export interface InMemoryApply {
  expect(messageIds: readonly string[]): void;
  settle(messageIds: readonly string[]): void;
  /** Resolves once the documents are applied (and delivered or queued for delivery) or handed to the apply queue. */
  submit(documents: readonly ValidatedDocument[]): Promise<void>;
}

export interface PipelineDeps {
  readonly db: Database;
  readonly catalogue: Catalogue;
  /** Validates documents against the catalogue's schemas (on a thread of its own where it can). */
  readonly schemas: SchemaValidator;
  readonly counterparties: ReadonlyMap<string, Counterparty>;
  readonly limits: { readonly maxDocumentBytes: number; readonly maxXmlDepth: number; readonly maxAttributesPerElement: number; readonly maxAttributesPerDocument: number; readonly maxReportBytes: number };
  /** Validates record batches of streamed custodian reports. */
  readonly reportValidator: BatchValidator;
  /** Where documents too large for the database (custodian reports) are kept. */
  readonly documents: DocumentStore;
  /** Progress of the current job, when a queue runs it (BullMQ job progress). */
  readonly jobProgress?: (progress: object) => void;
  readonly rules: { readonly maxBackdateDays: number };
  /** The insurer's own organisation number (`ssek.organisationNumber`): what a document addressed to the insurer names. */
  readonly insurerOrganisationNumber: string;
  readonly clock: () => Date;
  /**
   * The channel an answer to this counterparty leaves by: its configured route, or the
   * channel the request came by (undefined for a document the gateway starts itself).
   */
  readonly outboundFor: (counterpartyId: string, requestChannel: string | undefined) => OutboundChannel;
  readonly scheduler: StageScheduler;
  readonly log: Logger;
  /** Aborted when the process shuts down: long-running stage work stops at its next safe point. */
  readonly stopping?: AbortSignal;
  /** What a stage holds for the next in this process (a process that runs the workers); absent: every stage reads the message store. */
  readonly handOff?: HandOff;
  /**
   * The process's apply loop, where it runs the workers: validation hands the documents of
   * types that apply side by side (`concurrentApply`) to it; absent: they are written
   * `validated` and queued for apply.
   */
  readonly applyLoop?: InMemoryApply;
  /** The process's metrics (GET /metrics); absent where nothing serves them (`submit` in-process). */
  readonly metrics?: GatewayMetrics;
}
