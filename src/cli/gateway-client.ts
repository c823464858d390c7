import type { PersonView } from './person-view.ts';
import { postFile } from './post-file.ts';
import type { GatewayConfig } from '../config/config.schema.ts';
import { GatewayError, isGatewayError } from '../core/gateway-error.ts';
import { ERROR_CODES, isErrorCode } from '../core/error-codes.ts';
import type { IntakeReceipt } from '../channels/envelope.ts';
import type { MessageEvent, MessageFilter, StoredMessage } from '../ledger/messages/messages.repository.ts';
import type { CustodianReportView } from '../calendar/report-deadlines.job.ts';
import type { SetAsideMailView } from '../ledger/messages/mail-set-aside.repository.ts';

/**
 * The CLI's client of a running gateway's staff API (same host and port as the
 * configuration, first staff user's credentials). Used when the gateway is up, so the
 * CLI never opens an embedded database that the gateway holds. The configuration holds
 * only a hash of a production password: the CLI then takes the password from
 * DEPOT_GATEWAY_STAFF_PASSWORD (a plain `password`, loopback only, is used as it is).
 */
export interface MessageDetail {
  readonly message: StoredMessage;
  readonly events: readonly MessageEvent[];
  readonly deliveries: readonly { channel: string; target: string | null; outcome: string; error: string | null; at: Date }[];
}

const TERMINAL = new Set(['applied', 'rejected', 'duplicate', 'dead']);

export class GatewayClient {
  /** Where the CLI looks for a running gateway: the configuration's host (loopback for all interfaces) and port. */
  readonly base: string;
  private readonly authorization: string | undefined;
  /** Said when the gateway refuses the credentials: which user, and where the password came from. */
  private readonly credentials: { readonly username: string | undefined; readonly source: 'configuration' | 'environment' | 'none' };

  constructor(config: Readonly<GatewayConfig>) {
    this.base = gatewayUrl(config);
    const user = config.staff.users[0];
    const fromEnvironment = process.env.DEPOT_GATEWAY_STAFF_PASSWORD || undefined;
    const password = user?.password ?? fromEnvironment;
    this.authorization = user && password !== undefined ? `Basic ${Buffer.from(`${user.username}:${password}`).toString('base64')}` : undefined;
    this.credentials = { username: user?.username, source: user?.password !== undefined ? 'configuration' : fromEnvironment !== undefined ? 'environment' : 'none' };
  }

  async isRunning(): Promise<boolean> {
    try {
      const response = await fetch(`${this.base}/healthz`, { signal: AbortSignal.timeout(1000) });
      return response.ok;
    } catch {
      return false;
    }
  }

  /**
   * Sends the file as it is read, never whole in memory: a document over the gateway's
   * limit is still sent in full, so the gateway can record and refuse it as it refuses
   * such a document on every channel.
   */
  async submit(from: string, name: string, path: string): Promise<IntakeReceipt> {
    const query = new URLSearchParams({ from, name });
    const response = await postFile(`${this.base}/api/messages?${query}`, { ...this.headers(), 'content-type': 'application/xml' }, path);
    if (!response.ok) throw this.explained(await toError(response));
    return (await response.json()) as IntakeReceipt;
  }

  async waitForOutcome(messageId: string, timeoutMs: number): Promise<{ message: StoredMessage; response: string | undefined }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { message } = await this.show(messageId);
      if (TERMINAL.has(message.status)) {
        const response = message.status === 'dead' ? undefined : await this.response(messageId).catch(() => undefined);
        if (response || message.status === 'dead') return { message, response };
      }
      if (Date.now() > deadline) throw new GatewayError('INTERNAL_ERROR', `no outcome for ${messageId} within ${timeoutMs / 1000} s; it is ${message.status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  show(id: string): Promise<MessageDetail> {
    return this.request(`/api/messages/${encodeURIComponent(id)}`);
  }

  async list(filter: MessageFilter): Promise<StoredMessage[]> {
    const query = new URLSearchParams();
    if (filter.status) query.set('status', filter.status);
    if (filter.counterpartyId) query.set('counterparty', filter.counterpartyId);
    if (filter.messageType) query.set('type', filter.messageType);
    if (filter.limit) query.set('limit', String(filter.limit));
    return (await this.request<{ messages: StoredMessage[] }>(`/api/messages?${query}`)).messages;
  }

  async response(id: string): Promise<string> {
    const response = await fetch(`${this.base}/api/messages/${encodeURIComponent(id)}/response`, { headers: this.headers() });
    if (!response.ok) throw this.explained(await toError(response));
    return response.text();
  }

  person(agreement: string, pin: string, asOf: string): Promise<PersonView> {
    return this.request(`/api/agreements/${encodeURIComponent(agreement)}/persons/${encodeURIComponent(pin)}?asOf=${encodeURIComponent(asOf)}`);
  }

  async reports(query: { from?: string | undefined; to?: string | undefined; statuses?: readonly string[] | undefined }): Promise<CustodianReportView[]> {
    const params = new URLSearchParams();
    if (query.from) params.set('from', query.from);
    if (query.to) params.set('to', query.to);
    if (query.statuses?.length) params.set('status', query.statuses.join(','));
    return (await this.request<{ reports: CustodianReportView[] }>(`/api/custodian-reports?${params}`)).reports;
  }

  async setAsideMail(limit: number): Promise<SetAsideMailView[]> {
    return (await this.request<{ mails: SetAsideMailView[] }>(`/api/mail/set-aside?limit=${limit}`)).mails;
  }

  replay(id: string): Promise<unknown> {
    return this.request(`/api/messages/${encodeURIComponent(id)}/replay`, { method: 'POST' });
  }

  /** A staff API GET answered with a document (XML), its bytes as sent; an error answer is thrown as the GatewayError of its code. */
  async requestBytes(path: string): Promise<Buffer> {
    const response = await fetch(`${this.base}${path}`, { headers: this.headers() });
    if (!response.ok) throw this.explained(await toError(response));
    return Buffer.from(await response.arrayBuffer());
  }

  /** A staff API call answered with bytes (a PDF); an error answer is thrown as the GatewayError of its code. */
  async download(path: string): Promise<Buffer> {
    const response = await fetch(`${this.base}${path}`, { headers: this.headers() });
    if (!response.ok) throw this.explained(await toError(response));
    return Buffer.from(await response.arrayBuffer());
  }

  /**
   * A staff API call answered with JSON, for commands that keep their calls beside
   * them; an error answer is thrown as the GatewayError of its code.
   */
  async request<T>(path: string, init: RequestInit = {}): Promise<T> {
    const response = await fetch(`${this.base}${path}`, { ...init, headers: { ...this.headers(), ...(init.headers as Record<string, string>) } });
    if (!response.ok) throw this.explained(await toError(response));
    return (await response.json()) as T;
  }

  /** A refusal of the staff credentials says which password the CLI used and how to give it the right one. */
  private explained(error: Error): Error {
    if (!isGatewayError(error) || error.code !== 'STAFF_AUTHENTICATION_REQUIRED') return error;
    const user = this.credentials.username;
    const hint = user === undefined
      ? 'The configuration names no staff user (staff.users) for the CLI to sign in as.'
      : this.credentials.source === 'none'
        ? `The configuration holds only a hash of staff user ${user}'s password: set DEPOT_GATEWAY_STAFF_PASSWORD to that password (DEPOT_GATEWAY_STAFF_PASSWORD=… depot-gateway …).`
        : this.credentials.source === 'environment'
          ? `DEPOT_GATEWAY_STAFF_PASSWORD is not staff user ${user}'s password at ${this.base}.`
          : `The configuration's password of staff user ${user} is not the one the gateway at ${this.base} has.`;
    return new GatewayError('STAFF_AUTHENTICATION_REQUIRED', hint, { cause: error });
  }

  private headers(): Record<string, string> {
    return this.authorization ? { authorization: this.authorization } : {};
  }
}

/** The staff API a CLI with this configuration talks to. */
export function gatewayUrl(config: Readonly<GatewayConfig>): string {
  return `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
}

async function toError(response: Response): Promise<Error> {
  const body = (await response.json().catch(() => ({}))) as { code?: string; message?: string };
  if (body.code && isErrorCode(body.code)) {
    // The server's message already starts with the code's own text; keep only the detail.
    const detail = (body.message ?? '').replace(ERROR_CODES[body.code].message, '').trim();
    return new GatewayError(body.code, detail || undefined);
  }
  return new Error(`gateway answered ${response.status}: ${body.message ?? response.statusText}`);
}
