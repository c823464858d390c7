import type { GatewayConfig } from './config.schema.ts';
import { isLoopbackHost } from './exposed-credentials.ts';

/**
 * Where `bankidTestServer` may be on, as `path: problem` lines: in the demo only, on a
 * loopback host, and not beside a `bankid` of the insurer's own. Its page signs as
 * anyone for whoever reaches it, and its signatures prove nothing about a person: a
 * gateway that counted them for real requests, or that others could reach, would accept
 * forged signatures.
 */
export function bankIdTestServerProblems(config: GatewayConfig): string[] {
  if (!config.bankidTestServer) return [];
  const problems: string[] = [];
  const setting = 'bankidTestServer: the local BankID test server (its page signs as anyone, its signatures prove nothing)';
  if (!config.demo) problems.push(`${setting} is for the demo only (demo: true); point bankid at BankID's test service or production (docs/bankid.md)`);
  if (!isLoopbackHost(config.host)) problems.push(`${setting} is not allowed with host ${config.host} (not a loopback address)`);
  if (config.bankid) problems.push(`${setting} points bankid at itself: remove bankid, or set bankidTestServer: false`);
  return problems;
}
