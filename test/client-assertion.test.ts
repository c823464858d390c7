/**
 * private_key_jwt at POST /oauth/token (RFC 7523): a client configured with a public key
 * instead of a secret gets a token for a JWT it signed with its private key, once per
 * assertion; a wrong key, audience, subject, lifetime or a secret is refused with
 * invalid_client. Real gateway and PostgreSQL; the assertions are signed as a client's
 * OAuth library signs them.
 */
import { afterAll, beforeAll, describe, test } from '@jest/globals';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { hashSecret } from '../src/config/secret-hash.ts';
import { startTestGateway, type TestGateway } from './support/harness.ts';

const FORM = 'application/x-www-form-urlencoded';
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

interface AssertionClaims {
  readonly iss?: string;
  readonly sub?: string;
  readonly aud?: string;
  readonly lifetimeSeconds?: number;
  readonly jti?: string;
}

describe('OAuth token endpoint with private_key_jwt', () => {
  let gateway: TestGateway;
  let keyFolder: string;
  let now = new Date('2026-11-25T09:00:00Z');
  const firmKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const otherKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });

  beforeAll(async () => {
    keyFolder = await mkdtemp(join(tmpdir(), 'dg-client-keys-'));
    const publicKeyPath = join(keyFolder, 'firm.pem');
    await writeFile(publicKeyPath, firmKey.publicKey.export({ type: 'spki', format: 'pem' }));
    gateway = await startTestGateway({
      roles: ['api'],
      clock: () => now,
      settings: {
        api: {
          tokenRequestsPerMinute: 1000,
          clients: [
            { id: 'keyed-firm', kind: 'advisor-firm', organisationNumber: '5565555553', publicKeyPath },
            { id: 'secret-firm', kind: 'advisor-firm', organisationNumber: '5567777775', secretHash: await hashSecret('secret-firm-secret') },
          ],
        },
      },
    });
  });
  afterAll(async () => {
    await gateway?.destroy();
    await rm(keyFolder, { recursive: true, force: true });
  });

  async function assertion(key: KeyObject, claims: AssertionClaims = {}): Promise<string> {
    const issuedAt = Math.floor(now.getTime() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(claims.iss ?? 'keyed-firm')
      .setSubject(claims.sub ?? 'keyed-firm')
      .setAudience(claims.aud ?? 'http://127.0.0.1:8080/oauth/token')
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + (claims.lifetimeSeconds ?? 60))
      .setJti(claims.jti ?? randomUUID())
      .sign(key);
  }

  const ask = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    gateway.http!.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': FORM, ...headers }, payload: new URLSearchParams(form).toString() });
  const withAssertion = (signed: string, extra: Record<string, string> = {}) =>
    ask({ grant_type: 'client_credentials', client_assertion_type: JWT_BEARER, client_assertion: signed, ...extra });

  test('a signed assertion buys a bearer token that the REST API takes', async () => {
    const answer = await withAssertion(await assertion(firmKey.privateKey));
    assert.equal(answer.statusCode, 200, answer.body);
    const { access_token: token, token_type: type } = answer.json() as { access_token: string; token_type: string };
    assert.equal(type, 'Bearer');
    const products = await gateway.http!.inject({ url: '/Product', headers: { authorization: `Bearer ${token}` } });
    assert.equal(products.statusCode, 200, products.body);
    const byAudienceName = await withAssertion(await assertion(firmKey.privateKey, { aud: 'depot-gateway' }), { client_id: 'keyed-firm' });
    assert.equal(byAudienceName.statusCode, 200, byAudienceName.body);
  });

  test('an assertion is good once: the same jti again is refused', async () => {
    const signed = await assertion(firmKey.privateKey);
    assert.equal((await withAssertion(signed)).statusCode, 200);
    const again = await withAssertion(signed);
    assert.equal(again.statusCode, 401);
    assert.deepEqual(pick(again.json()), { error: 'invalid_client', code: 'API_CLIENT_INVALID' });
    assert.match((again.json() as { error_description: string }).error_description, /used before/);
  });

  test('a wrong key, audience, subject, issuer or lifetime, or a forged client_id, is invalid_client', async () => {
    const refused: [string, string, Record<string, string>?][] = [
      ['signed with another key', await assertion(otherKey.privateKey)],
      ['addressed elsewhere', await assertion(firmKey.privateKey, { aud: 'https://idp.example/token' })],
      ['for a client without a key', await assertion(firmKey.privateKey, { iss: 'secret-firm', sub: 'secret-firm' })],
      ['issuer not the subject', await assertion(firmKey.privateKey, { iss: 'someone-else' })],
      ['valid for an hour', await assertion(firmKey.privateKey, { lifetimeSeconds: 3600 })],
      ['client_id of another client', await assertion(firmKey.privateKey), { client_id: 'secret-firm' }],
      ['not a JWT', 'not-a-jwt'],
    ];
    for (const [what, signed, extra] of refused) {
      const answer = await withAssertion(signed, extra);
      assert.equal(answer.statusCode, 401, `${what}: ${answer.body}`);
      assert.deepEqual(pick(answer.json()), { error: 'invalid_client', code: 'API_CLIENT_INVALID' }, what);
    }
  });

  test('an expired assertion is refused', async () => {
    const signed = await assertion(firmKey.privateKey, { lifetimeSeconds: 60 });
    now = new Date(now.getTime() + 120_000);
    const answer = await withAssertion(signed);
    assert.equal(answer.statusCode, 401, answer.body);
    assert.match((answer.json() as { error_description: string }).error_description, /exp/);
  });

  test('a keyed client gets no token for a secret, and an assertion with a secret beside it is a bad request', async () => {
    const basic = `Basic ${Buffer.from('keyed-firm:anything').toString('base64')}`;
    const bySecret = await ask({ grant_type: 'client_credentials' }, { authorization: basic });
    assert.equal(bySecret.statusCode, 401, bySecret.body);
    const mixed = await withAssertion(await assertion(firmKey.privateKey), { client_secret: 'anything' });
    assert.equal(mixed.statusCode, 400, mixed.body);
    assert.equal((mixed.json() as { error: string }).error, 'invalid_request');
    const wrongType = await ask({ grant_type: 'client_credentials', client_assertion_type: 'urn:example:saml', client_assertion: 'x' });
    assert.equal(wrongType.statusCode, 400, wrongType.body);
    const secretFirm = await ask({ grant_type: 'client_credentials', client_id: 'secret-firm', client_secret: 'secret-firm-secret' });
    assert.equal(secretFirm.statusCode, 200, secretFirm.body);
  });
});

function pick(body: unknown): { error: unknown; code: unknown } {
  const { error, code } = body as { error: unknown; code: unknown };
  return { error, code };
}
