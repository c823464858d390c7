import { z } from 'zod';
import type { CollectResponseBody, RpErrorBody, SignResponseBody } from './bankid-protocol.ts';

/**
 * The shapes BankID's answers must have before the adapter hands them on. An answer
 * that does not fit is refused whole (BankIdError malformedAnswer) rather than passed
 * on half-read: a "complete" without a personal number or a signature must never
 * reach the code that decides whether a signature counts. Unknown extra fields are
 * kept out; unknown hint codes are let through (BankID adds them over time).
 */
const text = z.string().min(1);

const signAnswer = z.object({ orderRef: text, autoStartToken: text, qrStartToken: text, qrStartSecret: text });

const completionData = z.object({
  user: z.object({ personalNumber: z.string().regex(/^\d{12}$/), name: z.string(), givenName: z.string(), surname: z.string() }),
  device: z.object({ ipAddress: z.string(), uhi: z.string().optional() }),
  bankIdIssueDate: z.string(),
  stepUp: z.object({ mrtd: z.boolean() }).optional(),
  signature: text,
  ocspResponse: text,
});

const collectAnswer = z.discriminatedUnion('status', [
  z.object({ orderRef: text, status: z.literal('pending'), hintCode: text }),
  z.object({ orderRef: text, status: z.literal('failed'), hintCode: text }),
  z.object({ orderRef: text, status: z.literal('complete'), completionData }),
]);

const errorAnswer = z.object({ errorCode: text, details: z.string().default('') });

/** The sign answer, or undefined when it does not have the documented shape. */
export function readSignAnswer(body: unknown): SignResponseBody | undefined {
  const parsed = signAnswer.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}

export function readCollectAnswer(body: unknown): CollectResponseBody | undefined {
  const parsed = collectAnswer.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}

export function readErrorAnswer(body: unknown): RpErrorBody | undefined {
  const parsed = errorAnswer.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}
