import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isGatewayError } from '../../core/gateway-error.ts';
import type { LoginThrottle } from '../login-throttle.ts';
import { html } from './html.ts';
import { notice, page } from './layout.ts';
import { readCookie, sameSecret, type StaffSessions } from './staff-sessions.ts';

/**
 * Signing in to and out of the console. The sign-in form is protected against forged
 * submissions (a site signing a browser in under the attacker's name) by a
 * double-submit token: a random value both in a SameSite=Strict cookie and in the
 * form, which must match. Wrong passwords count in the same login throttle as HTTP
 * Basic. After signing in the browser goes back to the page it asked for (`next`,
 * a path of this gateway only).
 */
const FORM_COOKIE = 'dg_sign_in_form';

export function registerSignInRoutes(app: FastifyInstance, sessions: StaffSessions, throttle: LoginThrottle): void {
  app.get<{ Querystring: { next?: string } }>('/console/sign-in', async (request, reply) => {
    return signInPage(request, reply, { next: safeNext(request.query.next), errors: [] });
  });

  app.post<{ Body: Record<string, string | undefined> }>('/console/sign-in', async (request, reply) => {
    const form = request.body ?? {};
    const next = safeNext(form.next);
    const formToken = readCookie(request.headers.cookie, FORM_COOKIE);
    if (!formToken || !form._csrf || !sameSecret(formToken, form._csrf)) {
      return signInPage(request, reply.code(403), { next, errors: ['The sign-in form had expired. Please sign in again.'] });
    }
    try {
      throttle.assertAllowed(request.ip);
    } catch (error) {
      if (!isGatewayError(error)) throw error;
      return signInPage(request, reply.code(429), { next, errors: [error.message] });
    }
    const signedIn = await sessions.signIn(form.username ?? '', form.password ?? '');
    if (!signedIn) {
      throttle.recordFailure(request.ip);
      request.log.warn({ username: form.username }, 'console sign-in refused: unknown user or wrong password');
      return signInPage(request, reply.code(401), { next, errors: ['Unknown user or wrong password.'] });
    }
    request.log.info({ username: signedIn.identity.username }, 'console sign-in');
    void reply.header('set-cookie', [sessions.cookie(request, signedIn.token), formCookie(request, undefined)]);
    return reply.redirect(next, 303);
  });

  app.post('/console/sign-out', async (request, reply) => {
    await sessions.signOut(request);
    void reply.header('set-cookie', sessions.cookie(request, undefined));
    return reply.redirect('/console/sign-in', 303);
  });
}

function signInPage(request: FastifyRequest, reply: FastifyReply, state: { next: string; errors: readonly string[] }): FastifyReply {
  const token = randomBytes(24).toString('base64url');
  const body = html`${notice('error', state.errors)}
<form method="post" action="/console/sign-in" class="sign-in">
  <input type="hidden" name="_csrf" value="${token}">
  <input type="hidden" name="next" value="${state.next}">
  <label>User name <input name="username" autocomplete="username" required autofocus></label>
  <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
  <button type="submit">Sign in</button>
</form>`;
  return reply.header('set-cookie', formCookie(request, token)).type('text/html; charset=utf-8').send(page('Sign in', null, body));
}

function formCookie(request: FastifyRequest, token: string | undefined): string {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return token === undefined
    ? `${FORM_COOKIE}=; Max-Age=0; Path=/console/sign-in; HttpOnly; SameSite=Strict${secure}`
    : `${FORM_COOKIE}=${token}; Max-Age=3600; Path=/console/sign-in; HttpOnly; SameSite=Strict${secure}`;
}

/** Where to go after signing in: a path of this gateway (never another site), else the overview. */
export function safeNext(next: string | undefined): string {
  return next && /^\/(?![/\\])/.test(next) && !/[\r\n]/.test(next) ? next : '/console';
}
