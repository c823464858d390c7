import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { GatewayConfig } from '../../config/config.schema.ts';
import { GatewayError } from '../../core/gateway-error.ts';
import type { SsekFlow, SsekPartyId } from './ssek-envelope.ts';

/**
 * Who is who on the SSEK endpoint, from the configuration: the ids that name the
 * insurer (ReceiverId), and for each counterparty set up for SSEK the SenderIds, the
 * client certificate and the signing certificate that identify it. A counterparty
 * without an `ssek` setting cannot use SSEK. When a counterparty has a client
 * certificate registered, a request under its SenderId must come with that
 * certificate, and a request with a registered certificate must name that holder's
 * SenderId: the SenderId alone never outranks the TLS identity. A SenderId is a public
 * organisation number, so a counterparty needs a client certificate or a signing
 * certificate (or both): one with neither is refused at start (load-config's cross
 * check) and, should a directory be built without that check, every request naming it
 * is refused here.
 */
export interface SsekParty {
  readonly counterpartyId: string;
  readonly senderIds: readonly SsekPartyId[];
  readonly certificateSubject: string | undefined;
  readonly certificateFingerprint: string | undefined;
  /** PEM of the certificate that signs the counterparty's bodies, when WS-Security is required. */
  readonly signingCertificate: string | undefined;
  readonly pushUrl: string | undefined;
  readonly flow: SsekFlow;
}

/** The TLS client certificate of a request, when one was presented and chains to the configured CA. */
export interface ClientCertificate {
  readonly subjectCommonName: string | undefined;
  /** SHA-256 fingerprint, hex with colons (Node's fingerprint256). */
  readonly fingerprint256: string;
}

export class SsekDirectory {
  readonly insurerId: SsekPartyId;
  readonly #receiverIds: readonly SsekPartyId[];
  readonly #parties: ReadonlyMap<string, SsekParty>;

  constructor(config: Readonly<GatewayConfig>) {
    this.insurerId = { type: 'ORGNR', value: config.ssek.organisationNumber };
    this.#receiverIds = [this.insurerId, ...config.ssek.receiverIds];
    const parties = new Map<string, SsekParty>();
    for (const [index, counterparty] of config.counterparties.entries()) {
      const ssek = counterparty.ssek;
      if (!ssek) continue;
      parties.set(counterparty.id, {
        counterpartyId: counterparty.id,
        senderIds: ssek.senderIds.length > 0 ? ssek.senderIds : [{ type: 'ORGNR', value: counterparty.organisationNumber }],
        certificateSubject: ssek.clientCertificateSubject,
        certificateFingerprint: ssek.clientCertificateFingerprint && normaliseFingerprint(ssek.clientCertificateFingerprint),
        signingCertificate: ssek.signingCertificatePath && readCertificate(ssek.signingCertificatePath, `counterparties.${index}.ssek.signingCertificatePath`),
        pushUrl: ssek.pushUrl,
        flow: ssek.flow,
      });
    }
    this.#parties = parties;
  }

  party(counterpartyId: string): SsekParty | undefined {
    return this.#parties.get(counterpartyId);
  }

  /** Throws SSEK_RECEIVER_ID_UNKNOWN unless the id names the insurer. */
  checkReceiver(receiverId: SsekPartyId | undefined): void {
    if (!receiverId) throw new GatewayError('SSEK_RECEIVER_ID_UNKNOWN', 'The SSEK header has no ReceiverId.');
    if (!this.#receiverIds.some((id) => sameId(id, receiverId))) {
      throw new GatewayError('SSEK_RECEIVER_ID_UNKNOWN', `ReceiverId ${describe(receiverId)} is not the insurer; use ${describe(this.insurerId)}.`);
    }
  }

  /** The counterparty a request comes from; throws SSEK_SENDER_ID_UNKNOWN when the SenderId and certificate do not name one. */
  identify(senderId: SsekPartyId | undefined, certificate: ClientCertificate | undefined): SsekParty {
    if (!senderId) throw new GatewayError('SSEK_SENDER_ID_UNKNOWN', 'The SSEK header has no SenderId.');
    const named = [...this.#parties.values()].find((party) => party.senderIds.some((id) => sameId(id, senderId)));
    if (!named) throw new GatewayError('SSEK_SENDER_ID_UNKNOWN', `SenderId ${describe(senderId)} is not registered for SSEK.`);
    const holder = certificate && [...this.#parties.values()].find((party) => certificateMatches(party, certificate));
    if (holder && holder !== named) {
      throw new GatewayError('SSEK_SENDER_ID_UNKNOWN', `SenderId ${describe(senderId)} does not belong to the holder of the client certificate.`);
    }
    const needsCertificate = named.certificateSubject !== undefined || named.certificateFingerprint !== undefined;
    if (needsCertificate && !holder) {
      throw new GatewayError('SSEK_SENDER_ID_UNKNOWN', `SenderId ${describe(senderId)} must come with its registered client certificate.`);
    }
    if (!needsCertificate && named.signingCertificate === undefined) {
      throw new GatewayError('SSEK_NOT_AUTHENTICATED', `SenderId ${describe(senderId)} has no client certificate or signing certificate registered; the insurer must register one before it can send.`);
    }
    return named;
  }
}

function certificateMatches(party: SsekParty, certificate: ClientCertificate): boolean {
  if (party.certificateFingerprint) return party.certificateFingerprint === normaliseFingerprint(certificate.fingerprint256);
  return party.certificateSubject !== undefined && party.certificateSubject === certificate.subjectCommonName;
}

function sameId(a: SsekPartyId, b: SsekPartyId): boolean {
  return a.value === b.value && (a.type === undefined || b.type === undefined || a.type.toUpperCase() === b.type.toUpperCase());
}

function describe(id: SsekPartyId): string {
  return `"${id.value}"${id.type ? ` (type ${id.type})` : ''}`;
}

function normaliseFingerprint(fingerprint: string): string {
  return fingerprint.replace(/:/g, '').toUpperCase();
}

function readCertificate(path: string, setting: string): string {
  try {
    return readFileSync(resolve(path), 'utf8');
  } catch (error) {
    throw new GatewayError('CONFIG_INVALID', `${setting}: cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
}
