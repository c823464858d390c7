import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { buildSenderDirectory, isXmlAttachment, planMail, type ReadMail } from './mail-attachments.ts';
import { replySubject } from './mail.outbox.ts';

const AT = new Date('2026-11-22T10:00:00Z');
const senders = buildSenderDirectory([
  { id: 'demo-employer', mail: { addresses: ['HR@Employer.example'] } },
  { id: 'demo-custodian' },
]);
const xml = (name: string | undefined, contentType = 'application/octet-stream') => ({ fileName: name, contentType, content: new TextEncoder().encode('<a/>') });
const TRUST = { authservId: 'mx.insurer.example', trustedRelay: new Set<string>() };
const PASSED = ['mx.insurer.example; dkim=pass header.d=employer.example; dmarc=pass header.from=employer.example'];
const mail = (fields: Partial<ReadMail>): ReadMail => ({
  messageId: '<m1@employer.example>', from: 'hr@employer.EXAMPLE', subject: 'Fees', references: [], attachments: [], authenticationResults: PASSED, ...fields,
});

test('the sender address is matched without regard to case, and each XML attachment becomes an envelope', () => {
  const plan = planMail(mail({ references: ['<r0@x>'], attachments: [xml('fees.xml'), xml(undefined, 'text/xml; charset=utf-8'), xml('letter.pdf', 'application/pdf')] }), senders, AT, TRUST);
  assert.equal(plan.kind, 'intake');
  if (plan.kind !== 'intake') return;
  assert.equal(plan.counterpartyId, 'demo-employer');
  assert.deepEqual(plan.envelopes.map((e) => e.externalId), ['<m1@employer.example>/fees.xml', '<m1@employer.example>/attachment-2.xml']);
  assert.deepEqual(plan.envelopes[0]?.metadata, {
    mailMessageId: '<m1@employer.example>', from: 'hr@employer.EXAMPLE', subject: 'Fees', references: ['<r0@x>'], attachment: 'fees.xml', fileName: 'fees.xml',
  });
  assert.ok(plan.envelopes.every((e) => e.channel === 'mail' && e.receivedAt === AT));
});

test('two attachments with the same name keep distinct external ids', () => {
  const plan = planMail(mail({ attachments: [xml('a.xml'), xml('a.xml')] }), senders, AT, TRUST);
  assert.deepEqual(plan.kind === 'intake' ? plan.envelopes.map((e) => e.externalId) : [], ['<m1@employer.example>/a.xml', '<m1@employer.example>/a.xml#2']);
});

test('an unknown sender or a mail without XML is set aside with its reason', () => {
  assert.equal(planMail(mail({ from: 'x@elsewhere.example', attachments: [xml('a.xml')] }), senders, AT, TRUST).kind, 'aside');
  assert.deepEqual(planMail(mail({ from: undefined }), senders, AT, TRUST), { kind: 'aside', reason: 'unknown-sender', detail: 'no From address is not the address of any counterparty' });
  assert.deepEqual(planMail(mail({ attachments: [xml('notes.txt', 'text/plain')] }), senders, AT, TRUST), {
    kind: 'aside', reason: 'no-xml-attachment', detail: 'no XML attachment, only notes.txt (text/plain)',
  });
});

test('XML is recognised by content type or name', () => {
  assert.ok(isXmlAttachment(xml('x.XML')));
  assert.ok(isXmlAttachment(xml(undefined, 'application/xml')));
  assert.ok(isXmlAttachment(xml(undefined, 'application/soap+xml')));
  assert.ok(!isXmlAttachment(xml('x.pdf', 'application/pdf')));
});

test('an address given for two counterparties is refused', () => {
  assert.throws(() => buildSenderDirectory([{ id: 'a', mail: { addresses: ['x@y.se'] } }, { id: 'b', mail: { addresses: ['X@Y.se'] } }]), /X@Y\.se is given for both a and b/);
});

test('a reply subject carries one "Re:"', () => {
  assert.equal(replySubject('Fees'), 'Re: Fees');
  assert.equal(replySubject('RE: Fees'), 'RE: Fees');
  assert.equal(replySubject(''), 'Re:');
});

test("mail whose From domain the receiving server did not authenticate is set aside, unless the counterparty's relay is trusted", () => {
  const forged = mail({ attachments: [xml('a.xml')], authenticationResults: ['mx.insurer.example; spf=pass smtp.mailfrom=x@attacker.example; dmarc=fail header.from=employer.example'] });
  const plan = planMail(forged, senders, AT, TRUST);
  assert.equal(plan.kind, 'aside');
  assert.equal(plan.kind === 'aside' && plan.reason, 'not-authenticated');
  assert.match(plan.kind === 'aside' ? plan.detail : '', /^hr@employer\.EXAMPLE is demo-employer's address, but no DMARC, DKIM or SPF pass for employer\.example/);
  assert.equal(planMail(forged, senders, AT, { ...TRUST, trustedRelay: new Set(['demo-employer']) }).kind, 'intake');
  const unnamed = planMail(mail({ attachments: [xml('a.xml')] }), senders, AT, { trustedRelay: new Set() });
  assert.match(unnamed.kind === 'aside' ? unnamed.detail : '', /mail\.imap\.authservId is not set/);
});
