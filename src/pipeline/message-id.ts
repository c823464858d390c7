import { monotonicFactory } from 'ulid';

/**
 * Message ids are ULIDs: 26 characters, sortable by arrival time, safe in file names
 * and as BullMQ job ids.
 */
const nextUlid = monotonicFactory();

export function newMessageId(): string {
  return nextUlid();
}
