import { monotonicFactory } from 'ulid';

/**
 * Message ids are ULIDs: 26 characters, sortable by arrival time, safe in file names
 * and as BullMQ job ids.
 */
const nextUlid = monotonicFactory();

export function newMessageId(): string {
  return nextUlid();
}

/**
 * The external id of a document staff submit (`depot-gateway submit`, POST
 * /api/messages): new each time. A document's identity is its content and header
 * MessageId; the name of the file it was read from says nothing about which document
 * it is (two types' `valid/multi-item.xml` are different documents).
 */
export function newSubmissionKey(): string {
  return `submit:${nextUlid()}`;
}
