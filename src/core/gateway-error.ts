import { ERROR_CODES, type ErrorCode } from './error-codes.ts';

/**
 * The one error class of depot-gateway. It carries a registered code, whether a
 * retry can help (decided here in core, mapped to BullMQ by the workers and to HTTP
 * by the edge) and the underlying cause.
 */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, detail?: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    const info = ERROR_CODES[code];
    super(detail ? `${info.message} ${detail}` : info.message, { cause: options.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.retryable = info.retryable;
    this.details = Object.freeze({ ...options.details });
  }

  get httpStatus(): number {
    return ERROR_CODES[this.code].httpStatus;
  }
}

export function isGatewayError(error: unknown): error is GatewayError {
  return error instanceof GatewayError;
}
