import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { GatewayConfig } from '../../config/config.schema.ts';
import type { Database } from '../../ledger/database.ts';
import {
  deleteStaffSession, deleteStaleStaffSessions, findStaffSession, insertStaffSession, touchStaffSession,
} from '../../ledger/staff/staff-sessions.repository.ts';
import { PasswordCheck } from '../password-check.ts';

/**
 * Staff sessions of the console, kept in PostgreSQL (staff_sessions), so every api
 * process sees the same sessions and a restart signs nobody out. The browser holds a
 * random 256-bit token in an HttpOnly, SameSite=Strict cookie (Secure when the request
 * came over TLS); the table holds only its SHA-256. A session ends at sign-out, after
 * `staff.sessionIdleMinutes` without a request, or `staff.sessionMaxHours` after
 * sign-in. Each session has its own CSRF token, which every console form carries.
 *
 * A user's role is read from the configuration at each request, not stored in the
 * session: a user removed from staff.users, or made a viewer, is so at once.
 */
export type StaffRole = GatewayConfig['staff']['users'][number]['role'];

export interface StaffIdentity {
  readonly username: string;
  readonly role: StaffRole;
  /** How the request proved who it is. */
  readonly via: 'session' | 'basic';
  /** The session's CSRF token (sessions only). */
  readonly csrfToken?: string;
}

export const SESSION_COOKIE = 'dg_staff_session';
/** A session's last-seen time is written at most this often, not on every request. */
const TOUCH_EVERY_MS = 60_000;

export class StaffSessions {
  private readonly roles: ReadonlyMap<string, StaffRole>;
  private readonly passwords: PasswordCheck;

  constructor(
    private readonly db: Database,
    private readonly settings: Readonly<GatewayConfig['staff']>,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.roles = new Map(settings.users.map((user) => [user.username, user.role]));
    this.passwords = new PasswordCheck(settings.users.map((user) => ({ name: user.username, password: user.password, passwordHash: user.passwordHash })));
  }

  roleOf(username: string): StaffRole | undefined {
    return this.roles.get(username);
  }

  /** Checks the password and opens a session; undefined when the name or password is wrong. */
  async signIn(username: string, password: string): Promise<{ token: string; identity: StaffIdentity } | undefined> {
    const role = this.roleOf(username);
    if (!(await this.passwords.matches(username, password)) || !role) return undefined;
    const now = this.now();
    await deleteStaleStaffSessions(this.db, now, this.idleSince(now));
    const token = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + this.settings.sessionMaxHours * 3_600_000);
    await insertStaffSession(this.db, { tokenSha256: digest(token), username, csrfToken, now, expiresAt });
    return { token, identity: { username, role, via: 'session', csrfToken } };
  }

  /** The signed-in user of the request's session cookie, when the session is alive and the user still configured. */
  async identify(request: FastifyRequest): Promise<StaffIdentity | undefined> {
    const token = readCookie(request.headers.cookie, SESSION_COOKIE);
    if (!token) return undefined;
    const now = this.now();
    const session = await findStaffSession(this.db, digest(token), now, this.idleSince(now));
    const role = session && this.roleOf(session.username);
    if (!session || !role) return undefined;
    if (now.getTime() - session.lastSeenAt.getTime() >= TOUCH_EVERY_MS) await touchStaffSession(this.db, digest(token), now);
    return { username: session.username, role, via: 'session', csrfToken: session.csrfToken };
  }

  async signOut(request: FastifyRequest): Promise<void> {
    const token = readCookie(request.headers.cookie, SESSION_COOKIE);
    if (token) await deleteStaffSession(this.db, digest(token));
  }

  /** The Set-Cookie value that holds a session's token (or, without one, removes it). */
  cookie(request: FastifyRequest, token: string | undefined): string {
    const attributes = ['Path=/', 'HttpOnly', 'SameSite=Strict', ...(request.protocol === 'https' ? ['Secure'] : [])];
    return token === undefined
      ? [`${SESSION_COOKIE}=`, 'Max-Age=0', ...attributes].join('; ')
      : [`${SESSION_COOKIE}=${token}`, `Max-Age=${this.settings.sessionMaxHours * 3600}`, ...attributes].join('; ');
  }

  private idleSince(now: Date): Date {
    return new Date(now.getTime() - this.settings.sessionIdleMinutes * 60_000);
  }
}

/**
 * Whether a changing request sent with a session came from the gateway's own pages:
 * the session's CSRF token (a form's `_csrf` field or the `x-csrf-token` header), or,
 * for a script of a page the gateway served (the queue dashboard), an Origin header
 * naming this host. HTTP Basic requests carry no ambient credential and need neither.
 */
export function isOwnRequest(request: FastifyRequest, identity: StaffIdentity, formToken?: string): boolean {
  if (identity.via !== 'session') return true;
  const given = formToken ?? headerValue(request.headers['x-csrf-token']);
  if (given !== undefined && identity.csrfToken !== undefined && sameSecret(given, identity.csrfToken)) return true;
  const origin = headerValue(request.headers.origin);
  if (origin === undefined || origin === 'null') return false;
  try {
    return new URL(origin).host === new URL(`${request.protocol}://${request.host}`).host;
  } catch {
    return false;
  }
}

/** GET, HEAD and OPTIONS read; everything else changes something. */
export function isReadOnly(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim() || undefined;
  }
  return undefined;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function sameSecret(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right);
}
