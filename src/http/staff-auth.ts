import type { FastifyInstance } from 'fastify';
import fastifyBasicAuth from '@fastify/basic-auth';
import type { GatewayConfig } from '../config/config.schema.ts';
import { PasswordCheck } from './password-check.ts';
import type { LoginThrottle } from './login-throttle.ts';

/**
 * HTTP Basic authentication for insurer staff (the queue dashboard, the message API).
 * Credentials come from the configuration's staff.users: a scrypt `passwordHash`, or on
 * a loopback host a plain `password`. With no staff configured, every staff route
 * answers 401: nothing is open by accident. Wrong credentials count against the
 * client's address in the login throttle; past the limit it is answered 429.
 */
export async function requireStaff(app: FastifyInstance, users: GatewayConfig['staff']['users'], throttle: LoginThrottle): Promise<void> {
  const check = new PasswordCheck(users.map((user) => ({ name: user.username, password: user.password, passwordHash: user.passwordHash })));
  await app.register(fastifyBasicAuth, {
    authenticate: { realm: 'depot-gateway staff' },
    async validate(username, password, request) {
      if (await check.matches(username, password)) return;
      throttle.recordFailure(request.ip);
      request.log.warn({ username }, 'staff login refused: unknown user or wrong password');
      throw new Error('unknown staff user or wrong password');
    },
  });
  app.addHook('onRequest', async (request) => throttle.assertAllowed(request.ip));
  app.addHook('onRequest', app.basicAuth);
}
