import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { readHeaderMessageId } from './header-message-id.ts';

const read = (xml: string) => readHeaderMessageId(Buffer.from(xml));

test('the header MessageId is read, with a default or a prefixed namespace', () => {
  assert.equal(read('<?xml version="1.0"?>\n<ChangeFee xmlns="urn:se:depot-gateway:v1">\n  <Header>\n    <MessageId>CF-1</MessageId>\n  </Header></ChangeFee>'), 'CF-1');
  assert.equal(read('<dg:Holdings xmlns:dg="urn:se:depot-gateway:v1"><dg:Header><dg:MessageId> H.2026:11_22 </dg:MessageId></dg:Header></dg:Holdings>'), 'H.2026:11_22');
});

test('a MessageId in a comment, a processing instruction or CDATA is not the header\'s', () => {
  assert.equal(read('<!-- <Header><MessageId>OLD</MessageId></Header> --><ChangeFee><Header><MessageId>NEW</MessageId></Header></ChangeFee>'), 'NEW');
  assert.equal(read('<?note <Header><MessageId>PI</MessageId></Header>?><ChangeFee><Header><MessageId>REAL</MessageId></Header></ChangeFee>'), 'REAL');
  assert.equal(read('<ChangeFee><![CDATA[<Header><MessageId>CD</MessageId></Header>]]></ChangeFee>'), undefined);
});

test('no id without a header whose first child is a MessageId of the Identifier form', () => {
  assert.equal(read('not xml at all'), undefined);
  assert.equal(read('<ChangeFee><Item><MessageId>ITEM</MessageId></Item></ChangeFee>'), undefined);
  assert.equal(read('<ChangeFee><Header><CreatedAt>2026</CreatedAt><MessageId>LATE</MessageId></Header></ChangeFee>'), undefined);
  assert.equal(read('<ChangeFee><Header><MessageId>has space</MessageId></Header></ChangeFee>'), undefined);
  assert.equal(read(`<ChangeFee><Header><MessageId>${'x'.repeat(65)}</MessageId></Header></ChangeFee>`), undefined);
  assert.equal(read('<ChangeFee><Header><MessageId>A&amp;B</MessageId></Header></ChangeFee>'), undefined);
  assert.equal(read('<ChangeFee><Headers><MessageId>NOPE</MessageId></Headers></ChangeFee>'), undefined);
});

test('only the first 64 KiB are looked at', () => {
  const padding = `<!--${' '.repeat(70 * 1024)}-->`;
  assert.equal(read(`${padding}<ChangeFee><Header><MessageId>FAR</MessageId></Header></ChangeFee>`), undefined);
});
