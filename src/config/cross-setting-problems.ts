import type { ConfigProblem } from './config-problem.ts';
import { bankIdTestServerProblems } from './bankid-test-server-problems.ts';
import { exposedCredentialProblems } from './exposed-credentials.ts';
import { MALFORMED, type Entry, type WellFormedConfig } from './well-formed-config.ts';

/**
 * What the schema cannot see setting by setting: names used twice, references to
 * nothing, identities two counterparties claim, senders nothing authenticates, secrets
 * exposed beyond this machine, one client holding every database connection. Each check
 * reads only well-formed settings, so it runs beside the schema's findings instead of
 * after them.
 */
export function crossSettingProblems(config: WellFormedConfig): ConfigProblem[] {
  return [
    ...usedTwice(config),
    ...unknownCustodians(config),
    ...sharedIdentities(config),
    ...exposedCredentialProblems(config),
    ...bankIdTestServerProblems(config),
    ...ssekAuthenticationProblems(config),
    ...mailAuthenticationProblems(config),
    ...poolSharingProblems(config),
  ];
}

/** The entries of a list that is a list at all. */
export function entries<T>(list: readonly Entry<T>[] | typeof MALFORMED): readonly Entry<T>[] {
  return list === MALFORMED ? [] : list;
}

/** A counterparty id, API client id or staff user name given twice: the second would never be found. */
function usedTwice(config: WellFormedConfig): ConfigProblem[] {
  const twice = <T>(list: readonly Entry<T>[], path: string, setting: keyof T & string): ConfigProblem[] => {
    const seen = new Set<unknown>();
    return list.flatMap(({ index, settings }) => {
      const name = settings[setting];
      if (typeof name !== 'string') return [];
      if (!seen.has(name)) return (seen.add(name), []);
      return [{ path: `${path}.${index}.${setting}`, problem: `"${name}" is used twice` }];
    });
  };
  return [
    ...twice(entries(config.counterparties), 'counterparties', 'id'),
    ...twice(entries(config.apiClients), 'api.clients', 'id'),
    ...twice(entries(config.staffUsers), 'staff.users', 'username'),
  ];
}

/**
 * A custodian's API client must name a custodian among the counterparties. Left unsaid
 * while a counterparty that could be the one has a malformed role, or (when none has
 * the name) a malformed id.
 */
function unknownCustodians(config: WellFormedConfig): ConfigProblem[] {
  if (config.counterparties === MALFORMED) return [];
  const counterparties = config.counterparties.map(({ settings }) => settings);
  return entries(config.apiClients).flatMap(({ index, settings: client }) => {
    if (client.kind !== 'custodian' || client.counterpartyId === MALFORMED) return [];
    const custodian = (role: string | typeof MALFORMED) => role === 'custodian' || role === MALFORMED;
    const named = counterparties.filter(({ id }) => id === client.counterpartyId);
    const couldBeIt = named.length > 0 ? named.some(({ role }) => custodian(role)) : counterparties.some(({ id, role }) => id === MALFORMED && custodian(role));
    if (couldBeIt) return [];
    return [{ path: `api.clients.${index}.counterpartyId`, problem: `"${client.counterpartyId}" is not a custodian among the counterparties` }];
  });
}

/**
 * What identifies a sender must name one counterparty: a mail address (case does not
 * matter) or an SSEK SenderId (its type and value; a counterparty without senderIds is
 * named by its organisation number) given for two would be given to whichever is found first.
 */
function sharedIdentities(config: WellFormedConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const addresses = new Map<string, string>();
  const senderIds = new Map<string, string>();
  for (const { index, settings: counterparty } of entries(config.counterparties)) {
    const { id, mail, ssek, organisationNumber } = counterparty;
    if (id === MALFORMED) continue;
    for (const address of mail === MALFORMED ? [] : mail?.addresses ?? []) {
      const owner = addresses.get(address.toLowerCase());
      if (owner !== undefined && owner !== id) problems.push({ path: `counterparties.${index}.mail.addresses`, problem: `${address} is also an address of "${owner}"` });
      else addresses.set(address.toLowerCase(), id);
    }
    if (ssek === MALFORMED || ssek === undefined) continue;
    if (ssek.senderIds.length === 0 && organisationNumber === MALFORMED) continue;
    const ids = ssek.senderIds.length > 0 ? ssek.senderIds : [{ type: 'ORGNR', value: organisationNumber as string }];
    for (const senderId of ids) {
      const key = `${senderId.type.toUpperCase()}:${senderId.value}`;
      const owner = senderIds.get(key);
      if (owner !== undefined && owner !== id) problems.push({ path: `counterparties.${index}.ssek`, problem: `SenderId ${senderId.value} (type ${senderId.type}) also names "${owner}"` });
      else senderIds.set(key, id);
    }
  }
  return problems;
}

/** Read mail is believed by its receiving server's verdict: without its name no counterparty's mail could be taken. */
function mailAuthenticationProblems(config: WellFormedConfig): ConfigProblem[] {
  const imap = config.mail.imap;
  if (imap === MALFORMED || imap === undefined || imap.authservId !== undefined) return [];
  return entries(config.counterparties).flatMap(({ index, settings: { id, mail } }) => (mail !== MALFORMED && mail !== undefined && !mail.trustedRelay
    ? [{
      path: `counterparties.${index}.mail`,
      problem: `${possessive(id)} mail cannot be authenticated: set mail.imap.authservId (the name your receiving mail server writes in Authentication-Results), ` +
        'or mail.trustedRelay: true if its mail comes only through a relay you trust',
    }]
    : []));
}

/**
 * SSEK counterparties that nothing but their SenderId — a public organisation number —
 * would identify: each needs a client certificate (which needs ssek.tls.clientCaPath to
 * be asked for) or a signing certificate.
 */
function ssekAuthenticationProblems(config: WellFormedConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const tls = config.ssek.tls;
  for (const { index, settings: { id, ssek } } of entries(config.counterparties)) {
    if (ssek === MALFORMED || ssek === undefined) continue;
    const path = `counterparties.${index}.ssek`;
    const certificate = ssek.clientCertificateSubject !== undefined || ssek.clientCertificateFingerprint !== undefined;
    if (!certificate && ssek.signingCertificatePath === undefined) {
      problems.push({
        path,
        problem: `${subject(id)} has neither a client certificate (clientCertificateSubject or clientCertificateFingerprint, with ssek.tls.clientCaPath) ` +
          'nor a signingCertificatePath: anyone could send under its SenderId',
      });
    }
    if (certificate && tls !== MALFORMED && !tls?.clientCaPath) {
      problems.push({ path, problem: `${subject(id)} is identified by a client certificate, but ssek.tls.clientCaPath is not set, so none is asked for` });
    }
  }
  return problems;
}

/**
 * A REST client may have fewer requests in flight than the process has database
 * connections, so that one client busy with slow requests leaves connections for the others.
 */
function poolSharingProblems(config: WellFormedConfig): ConfigProblem[] {
  const pool = config.top.databasePoolSize;
  if (pool === MALFORMED) return [];
  const tooMany = (path: string, concurrent: number) => ({ path, problem: `${concurrent} is not below databasePoolSize (${pool}); one client could hold every database connection` });
  const problems: ConfigProblem[] = [];
  const limits = config.api.limits;
  if (limits !== MALFORMED && limits.concurrentRequests >= pool) problems.push(tooMany('api.limits.concurrentRequests', limits.concurrentRequests));
  for (const { index, settings: client } of entries(config.apiClients)) {
    const concurrent = client.limits === MALFORMED ? undefined : client.limits?.concurrentRequests;
    if (concurrent !== undefined && concurrent >= pool) problems.push(tooMany(`api.clients.${index}.limits.concurrentRequests`, concurrent));
  }
  return problems;
}

/** A counterparty in a problem's text: by its id where that is well-formed. */
export function subject(id: string | typeof MALFORMED): string {
  return id === MALFORMED ? 'this counterparty' : `"${id}"`;
}

export function possessive(id: string | typeof MALFORMED): string {
  return id === MALFORMED ? 'this counterparty\'s' : `"${id}"'s`;
}
