import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { parsePostgresTargets } from './postgres-hosts.ts';

test('a libpq multi-host URL gives its hosts in order, each with its own URL keeping the user, password, database and other parameters', () => {
  const targets = parsePostgresTargets('postgresql://depot:s%40cret@db1.example:5433,db2.example,[::1]:5434/ledger?sslmode=require&target_session_attrs=read-write&application_name=x');
  assert.equal(targets.targetSessionAttrs, 'read-write');
  assert.equal(targets.multiHost, true);
  assert.deepEqual(targets.hosts, [{ host: 'db1.example', port: 5433 }, { host: 'db2.example', port: undefined }, { host: '[::1]', port: 5434 }]);
  assert.deepEqual(targets.hosts.map(targets.urlOf), [
    'postgresql://depot:s%40cret@db1.example:5433/ledger?sslmode=require&application_name=x',
    'postgresql://depot:s%40cret@db2.example/ledger?sslmode=require&application_name=x',
    'postgresql://depot:s%40cret@[::1]:5434/ledger?sslmode=require&application_name=x',
  ]);
});

test('one host without target_session_attrs is not multi-host (the URL is used as it is); one host with it is', () => {
  assert.equal(parsePostgresTargets('postgres://postgres@127.0.0.1:5432/postgres').multiHost, false);
  assert.equal(parsePostgresTargets('postgres://127.0.0.1/postgres?target_session_attrs=any').multiHost, false);
  const primary = parsePostgresTargets('postgres://127.0.0.1/postgres?target_session_attrs=primary');
  assert.equal(primary.multiHost, true);
  assert.equal(primary.urlOf(primary.hosts[0]!), 'postgres://127.0.0.1/postgres');
});

test('sessions the gateway cannot write through, and malformed hosts, are refused by name', () => {
  for (const attrs of ['read-only', 'standby', 'prefer-standby', 'bogus']) {
    assert.throws(() => parsePostgresTargets(`postgres://h1,h2/db?target_session_attrs=${attrs}`), new RegExp(`target_session_attrs=${attrs}`));
  }
  assert.throws(() => parsePostgresTargets('postgres://h1:99999,h2/db'), /port 99999/);
  assert.throws(() => parsePostgresTargets('postgres://h1:port,h2/db'), /h1:port/);
  assert.throws(() => parsePostgresTargets('mysql://h1/db'), /postgres/);
});
