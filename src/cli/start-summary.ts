import type { GatewayConfig } from '../config/config.schema.ts';
import { counterpartySubfolder } from '../channels/folder.layout.ts';

/**
 * What `start` says last: where a newcomer looks — each counterparty's inbox and
 * outbox, the queue dashboard and its login, the staff API, the demo's BankID test
 * page — and how to stop. At a terminal it is a few plain lines; in a JSON log, one
 * record with the same facts.
 * The password is shown only for the demo configuration, whose password is public.
 */
export interface StartSummary {
  readonly folders: readonly { readonly counterparty: string; readonly inbox: string; readonly outbox: string }[];
  /** Only with the `api` role. */
  readonly dashboard?: string;
  readonly login?: string;
  readonly api?: string;
  /** GET /metrics for Prometheus: on the api port, or on `metricsPort` in a process without the api role. */
  readonly metrics?: string;
  /** The page of the local BankID test server started beside the api role (`bankidTestServer`). */
  readonly bankIdTestPage?: string;
  readonly stop: string;
}

/** At most this many counterparties are listed; the rest are counted. */
const LISTED_FOLDERS = 5;

export function buildStartSummary(
  config: Readonly<GatewayConfig>, folders: ReadonlyMap<string, string>, port: number | undefined, pid: number, metricsPort?: number, bankIdTestPage?: string,
): StartSummary {
  const user = config.staff.users[0];
  const origin = (listening: number) => `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${listening}`;
  const base = port === undefined ? undefined : origin(port);
  const metrics = base ?? (metricsPort === undefined ? undefined : origin(metricsPort));
  return {
    folders: [...folders].map(([counterparty, folder]) => ({
      counterparty, inbox: counterpartySubfolder(folder, 'inbox'), outbox: counterpartySubfolder(folder, 'outbox'),
    })),
    ...(base
      ? {
          dashboard: `${base}/admin/queues`,
          login: user ? `${user.username} / ${loginHint(user, config.demo)}` : 'none: no staff.users configured',
          api: `${base}/api/messages`,
        }
      : {}),
    ...(metrics ? { metrics: `${metrics}/metrics` } : {}),
    ...(bankIdTestPage ? { bankIdTestPage } : {}),
    stop: `Ctrl+C, or kill -TERM ${pid} (active jobs finish first)`,
  };
}

export function formatStartSummary(summary: StartSummary): string {
  const lines = ['', 'depot-gateway is ready.'];
  for (const folder of summary.folders.slice(0, LISTED_FOLDERS)) {
    lines.push(`  ${folder.counterparty}`, `    drop documents into  ${folder.inbox}`, `    answers appear in    ${folder.outbox}`);
  }
  if (summary.folders.length > LISTED_FOLDERS) lines.push(`  … and ${summary.folders.length - LISTED_FOLDERS} more counterparties, each with its inbox and outbox`);
  if (summary.dashboard) lines.push(`  queue dashboard  ${summary.dashboard}  (login ${summary.login})`);
  if (summary.api) lines.push(`  staff API        ${summary.api}  (same login; or use depot-gateway submit / messages)`);
  if (summary.metrics) lines.push(`  metrics          ${summary.metrics}  (Prometheus; a staff login, HTTP Basic)`);
  if (summary.bankIdTestPage) lines.push(`  BankID test app  ${summary.bankIdTestPage}  (approve or refuse sign orders as a demo person)`);
  lines.push(`  to stop          ${summary.stop}`, '');
  return `${lines.join('\n')}\n`;
}

/** The demo's password as it is; otherwise only where the password is set. */
function loginHint(user: { password?: string | undefined }, demo: boolean): string {
  if (user.password === undefined) return '(the password whose hash is in staff.users)';
  return demo ? user.password : '(password in staff.users)';
}
