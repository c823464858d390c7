import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { parseConfig } from './load-config.ts';

const sentinelSet = { name: 'depot', sentinels: [{ host: 'sentinel1.internal' }, { host: 'sentinel2.internal', port: 26380 }] };

test('redis names a Sentinel set: the sentinels (port 26379 by default), the set name and database 0', () => {
  const config = parseConfig({ redis: sentinelSet });
  assert.deepEqual(config.redis, { name: 'depot', sentinels: [{ host: 'sentinel1.internal', port: 26379 }, { host: 'sentinel2.internal', port: 26380 }], db: 0 });
  assert.equal(config.redisUrl, undefined);
  assert.throws(() => parseConfig({ redis: { name: 'depot', sentinels: [] } }), /redis\.sentinels/);
  assert.throws(() => parseConfig({ redis: { sentinels: [{ host: 'a' }] } }), /redis\.name/);
});

test('redis beside redisUrl is refused: one of the two', () => {
  assert.throws(() => parseConfig({ redis: sentinelSet, redisUrl: 'redis://redis.internal:6379' }), /redis: set beside redisUrl/);
});

test('on a non-loopback host a placeholder password of the Sentinel set, or of a multi-host database URL, is refused', () => {
  assert.throws(
    () => parseConfig({ host: '0.0.0.0', redis: { ...sentinelSet, password: 'change-me', sentinelPassword: 'redis' } }),
    (error: Error) => /redis\.password: a placeholder/.test(error.message) && /redis\.sentinelPassword: a placeholder/.test(error.message),
  );
  assert.throws(
    () => parseConfig({ host: '0.0.0.0', databaseUrl: 'postgresql://depot:change-me@db1:5432,db2:5432/depot?target_session_attrs=read-write' }),
    /databaseUrl: its password is a placeholder/,
  );
});

test('a database URL asking for a session the gateway cannot write through is refused', () => {
  assert.throws(() => parseConfig({ databaseUrl: 'postgresql://db1,db2/depot?target_session_attrs=prefer-standby' }), /databaseUrl: target_session_attrs must be read-write, primary or any/);
  assert.equal(parseConfig({ databaseUrl: 'postgresql://db1,db2/depot?target_session_attrs=read-write' }).databaseUrl, 'postgresql://db1,db2/depot?target_session_attrs=read-write');
});
