import { GatewayError } from '../core/gateway-error.ts';
import type { OutboundChannel } from './outbound.ts';

/** Where a counterparty's answers go: back the way the request came, or always one channel. */
export type ReplyRoute = 'request' | 'folder' | 'sftp' | 'mail' | 'ssek';

/**
 * Chooses the channel a response or outgoing document leaves by. Each channel that can
 * answer registers itself under its name; a counterparty's `replyBy` setting picks one
 * for all its answers, and otherwise the answer goes back by the channel its request
 * came by. A request channel that cannot answer by itself (the CLI, REST, a local
 * folder) is answered through the counterparty's outbox folder.
 */
export class DeliveryRouter {
  readonly #channels = new Map<string, OutboundChannel>();
  readonly #routes: ReadonlyMap<string, ReplyRoute>;
  readonly #fallback: OutboundChannel;

  /** @param routes counterparty id → its `replyBy` setting; missing means 'request'. */
  constructor(fallback: OutboundChannel, routes: ReadonlyMap<string, ReplyRoute>) {
    this.#fallback = fallback;
    this.#routes = routes;
    this.register(fallback);
  }

  register(channel: OutboundChannel): void {
    this.#channels.set(channel.name, channel);
  }

  /**
   * The channel for one answer. `requestChannel` is the channel the request came by, or
   * undefined for a document the gateway starts itself (a debit file, a sell order).
   */
  channelFor(counterpartyId: string, requestChannel: string | undefined): OutboundChannel {
    const route = this.#routes.get(counterpartyId) ?? 'request';
    if (route === 'request') return (requestChannel && this.#channels.get(requestChannel)) || this.#fallback;
    const channel = this.#channels.get(route);
    if (!channel) {
      throw new GatewayError('DELIVERY_FAILED', `Counterparty ${counterpartyId} wants answers by ${route}, which is not set up for it.`, {
        details: { counterpartyId, route },
      });
    }
    return channel;
  }
}
