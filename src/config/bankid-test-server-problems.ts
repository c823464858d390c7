import type { ConfigProblem } from './config-problem.ts';
import { isLoopbackHost } from './exposed-credentials.ts';
import { MALFORMED, type WellFormedConfig } from './well-formed-config.ts';

/**
 * Where `bankidTestServer` may be on: in the demo only, on a loopback host, and not
 * beside a `bankid` of the insurer's own. Its page signs as anyone for whoever reaches
 * it, and its signatures prove nothing about a person: a gateway that counted them for
 * real requests, or that others could reach, would accept forged signatures.
 */
export function bankIdTestServerProblems(config: WellFormedConfig): ConfigProblem[] {
  const { bankidTestServer, demo, host, bankid } = config.top;
  if (bankidTestServer !== true) return [];
  const problems: string[] = [];
  const server = 'the local BankID test server (its page signs as anyone, its signatures prove nothing)';
  if (demo === false) problems.push(`${server} is for the demo only (demo: true); point bankid at BankID's test service or production (docs/bankid.md)`);
  if (host !== MALFORMED && !isLoopbackHost(host)) problems.push(`${server} is not allowed with host ${host} (not a loopback address)`);
  // A bankid setting given at all, well-formed or not.
  if (bankid !== undefined) problems.push(`${server} points bankid at itself: remove bankid, or set bankidTestServer: false`);
  return problems.map((problem) => ({ path: 'bankidTestServer', problem }));
}
