import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyBasicAuth from '@fastify/basic-auth';
import type { GatewayConfig } from '../config/config.schema.ts';
import { isGatewayError } from '../core/gateway-error.ts';
import { PasswordCheck } from './password-check.ts';
import type { LoginThrottle } from './login-throttle.ts';

/**
 * HTTP Basic authentication for insurer staff (the queue dashboard, the message API).
 * Credentials come from the configuration's staff.users: a scrypt `passwordHash`, or on
 * a loopback host a plain `password`. With no staff configured, every staff route
 * answers 401: nothing is open by accident. Wrong credentials count against the
 * client's address in the login throttle; past the limit it is answered 429.
 *
 * The refusal is answered here rather than thrown: a plugin in the staff scope may set
 * its own error handler (the queue dashboard does) and would answer it in its own
 * shape. Every staff route refuses alike: 401 `STAFF_AUTHENTICATION_REQUIRED`.
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
  app.addHook('onRequest', async (request, reply) => {
    const refusal = await new Promise<Error | undefined>((settle) => {
      try {
        throttle.assertAllowed(request.ip);
      } catch (error) {
        settle(error as Error);
        return;
      }
      app.basicAuth(request, reply, settle);
    });
    if (refusal) return refuse(reply, refusal);
    return undefined;
  });
}

function refuse(reply: FastifyReply, refusal: Error): FastifyReply {
  if (isGatewayError(refusal)) {
    const retryAfter = refusal.details.retryAfterSeconds;
    if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
    return reply.code(refusal.httpStatus).send({ code: refusal.code, message: refusal.message });
  }
  return reply.code(401).send({ code: 'STAFF_AUTHENTICATION_REQUIRED', message: refusal.message });
}
