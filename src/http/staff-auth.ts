import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fastifyBasicAuth from '@fastify/basic-auth';

/**
 * HTTP Basic authentication for insurer staff (the queue dashboard, the message API).
 * Credentials come from the configuration's staff.users. With no staff configured,
 * every staff route answers 401: nothing is open by accident.
 */
export async function requireStaff(app: FastifyInstance, users: readonly { username: string; password: string }[]): Promise<void> {
  const digests = users.map((user) => ({ username: digest(user.username), password: digest(user.password) }));
  await app.register(fastifyBasicAuth, {
    authenticate: { realm: 'depot-gateway staff' },
    async validate(username, password) {
      const name = digest(username);
      const secret = digest(password);
      const match = digests.some((user) => timingSafeEqual(user.username, name) && timingSafeEqual(user.password, secret));
      if (!match) throw new Error('unknown staff user or wrong password');
    },
  });
  app.addHook('onRequest', app.basicAuth);
}

/** Equal-length digests so timingSafeEqual compares without leaking lengths. */
function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
