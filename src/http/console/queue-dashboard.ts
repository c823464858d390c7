import type { FastifyInstance } from 'fastify';

/**
 * The queue dashboard (bull-board) as staff open it from the console: its page asks
 * Google's font service for its typeface, which would tell a third party each time
 * staff look at the gateway (and fails on networks that cannot reach it, an error in
 * every browser console). The link is taken out of the page; the dashboard falls back
 * to the system's fonts. Everything else it loads is served by the gateway itself.
 */
const EXTERNAL_FONTS = /<link[^>]+href="https:\/\/fonts\.googleapis\.com\/[^"]*"[^>]*>/g;

export function keepQueueDashboardLocal(scope: FastifyInstance): void {
  scope.addHook('onSend', async (request, reply, payload) => {
    if (!request.url.startsWith('/admin/queues') || typeof payload !== 'string') return payload;
    if (!String(reply.getHeader('content-type') ?? '').startsWith('text/html')) return payload;
    return payload.replace(EXTERNAL_FONTS, '');
  });
}
