import type { GatewayConfig } from '../config/config.schema.ts';

/**
 * Fastify's `trustProxy` option from the `trustProxy` setting, for every listener the
 * gateway opens (the api port, the metrics port). Only the listed proxies are believed:
 * from them request.ip is the client in X-Forwarded-For and request.protocol the one in
 * X-Forwarded-Proto, so the session cookie gets Secure behind a TLS-terminating proxy
 * and the throttles count each client apart. Never `true`, which would believe anyone's
 * X-Forwarded-For and let a guesser pick a fresh address for each wrong password. With
 * no proxies listed the option is left out and every X-Forwarded-* header is ignored.
 */
export function trustedProxies(config: Readonly<Pick<GatewayConfig, 'trustProxy'>>): { trustProxy?: string[] } {
  return config.trustProxy.length > 0 ? { trustProxy: [...config.trustProxy] } : {};
}
