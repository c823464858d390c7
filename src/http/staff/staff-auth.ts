import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyBasicAuth from '@fastify/basic-auth';
import type { GatewayConfig } from '../../config/config.schema.ts';
import { GatewayError, isGatewayError } from '../../core/gateway-error.ts';
import { PasswordCheck } from '../password-check.ts';
import type { LoginThrottle } from '../login-throttle.ts';
import { isOwnRequest, isReadOnly, type StaffIdentity, type StaffSessions } from '../console/staff-sessions.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the staff request is from, once staff authentication has passed. */
    staff: StaffIdentity | null;
  }
}

/**
 * Staff authentication (the queue dashboard, the staff API): a console session
 * (console/staff-sessions.ts), or HTTP Basic for the CLI and scripts. Credentials come
 * from the configuration's staff.users: a scrypt `passwordHash`, or on a loopback host
 * a plain `password`. With no staff configured, every staff route answers 401: nothing
 * is open by accident. Wrong credentials count against the client's address in the
 * login throttle; past the limit it is answered 429.
 *
 * After who, what: a `viewer` may only read (GET, HEAD); a change needs an `operator`
 * (403 STAFF_ROLE_FORBIDDEN). A change sent with a session cookie must also come from
 * the gateway's own pages (403 STAFF_REQUEST_FORGED): the cookie is sent by the
 * browser whoever asks, HTTP Basic from a script is not.
 *
 * The refusal is answered here rather than thrown: a plugin in the staff scope may set
 * its own error handler (the queue dashboard does) and would answer it in its own
 * shape. Every staff route refuses alike: 401 `STAFF_AUTHENTICATION_REQUIRED`.
 */
export async function requireStaff(app: FastifyInstance, users: GatewayConfig['staff']['users'], throttle: LoginThrottle, sessions?: StaffSessions): Promise<void> {
  const check = new PasswordCheck(users.map((user) => ({ name: user.username, password: user.password, passwordHash: user.passwordHash })));
  const roles = new Map(users.map((user) => [user.username, user.role]));
  app.decorateRequest('staff', null);
  await app.register(fastifyBasicAuth, {
    authenticate: { realm: 'depot-gateway staff' },
    async validate(username, password, request) {
      const role = roles.get(username);
      if (role && (await check.matches(username, password))) {
        request.staff = { username, role, via: 'basic' };
        return;
      }
      throttle.recordFailure(request.ip);
      request.log.warn({ username }, 'staff login refused: unknown user or wrong password');
      throw new Error('unknown staff user or wrong password');
    },
  });
  app.addHook('onRequest', async (request, reply) => {
    request.staff = (await sessions?.identify(request)) ?? null;
    const refusal = request.staff ? undefined : await new Promise<Error | undefined>((settle) => {
      try {
        throttle.assertAllowed(request.ip);
      } catch (error) {
        settle(error as Error);
        return;
      }
      app.basicAuth(request, reply, settle);
    });
    if (refusal) return refuse(reply, refusal);
    const forbidden = request.staff ? permission(request, request.staff) : undefined;
    if (forbidden) return refuse(reply, forbidden);
    return undefined;
  });
}

/** Why a signed-in staff user may not make this request, if they may not. */
function permission(request: FastifyRequest, staff: StaffIdentity): GatewayError | undefined {
  if (isReadOnly(request.method)) return undefined;
  if (staff.role !== 'operator') return new GatewayError('STAFF_ROLE_FORBIDDEN', `${staff.username} is a ${staff.role}.`);
  if (!isOwnRequest(request, staff)) return new GatewayError('STAFF_REQUEST_FORGED', `${request.method} ${request.url.split('?')[0]}`);
  return undefined;
}

function refuse(reply: FastifyReply, refusal: Error): FastifyReply {
  if (isGatewayError(refusal)) {
    const retryAfter = refusal.details.retryAfterSeconds;
    if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
    return reply.code(refusal.httpStatus).send({ code: refusal.code, message: refusal.message });
  }
  return reply.code(401).send({ code: 'STAFF_AUTHENTICATION_REQUIRED', message: refusal.message });
}
