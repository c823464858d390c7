import type { FastifyRequest } from 'fastify';

/**
 * Who made a staff change, for its audit trail: `staff:<user>` of a request that
 * passed staff authentication (a console session or HTTP Basic).
 */
export function staffUserOf(request: FastifyRequest): string {
  if (request.staff) return `staff:${request.staff.username}`;
  const basic = /^Basic (.+)$/i.exec(request.headers.authorization ?? '');
  const user = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8').split(':')[0] : undefined;
  return `staff:${user || 'unknown'}`;
}
