/**
 * Signing in to the staff console the way a browser does, for tests that talk to the
 * server directly: fetch the sign-in form (its CSRF cookie and field), post it, keep
 * the session cookie and read the session's CSRF token from a page's forms.
 */
import type { FastifyInstance } from 'fastify';

export interface ConsoleSession {
  /** The Cookie header that carries the session. */
  readonly cookie: string;
  /** The session's CSRF token, as the console's forms carry it. */
  readonly csrf: string;
}

export async function signInToConsole(http: FastifyInstance, username: string, password: string): Promise<ConsoleSession> {
  const answer = await postSignIn(http, username, password);
  if (answer.statusCode !== 303) throw new Error(`sign-in as ${username}: ${answer.statusCode}`);
  const cookie = cookieOf(answer.headers['set-cookie'], 'dg_staff_session');
  const overview = await http.inject({ url: '/console', headers: { cookie } });
  return { cookie, csrf: csrfOf(overview.body) };
}

/** A console page read in the session: its HTML, the answer required to be 200. */
export async function consolePage(http: FastifyInstance, session: ConsoleSession, url: string): Promise<string> {
  const answer = await http.inject({ url, headers: { cookie: session.cookie } });
  if (answer.statusCode !== 200) throw new Error(`GET ${url}: ${answer.statusCode} ${answer.body}`);
  return answer.body;
}

export async function postSignIn(http: FastifyInstance, username: string, password: string, next = '/console') {
  const form = await http.inject({ url: '/console/sign-in' });
  const formCookie = cookieOf(form.headers['set-cookie'], 'dg_sign_in_form');
  return http.inject({
    method: 'POST', url: '/console/sign-in', headers: { cookie: formCookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: csrfOf(form.body), next, username, password }).toString(),
  });
}

export function csrfOf(page: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
  if (!token) throw new Error('the page has no CSRF field');
  return token;
}

/** `name=value` of the named cookie among Set-Cookie headers. */
export function cookieOf(setCookie: string | string[] | undefined, name: string): string {
  const found = [setCookie ?? []].flat().find((header) => header.startsWith(`${name}=`));
  if (!found) throw new Error(`no ${name} cookie was set`);
  return found.split(';')[0]!;
}
