/**
 * `engines` in package.json is a promise to operators: every package the gateway
 * installs must run on the oldest Node it names. The lockfile records each package's
 * own `engines`, so the promise is checked here rather than discovered at an install.
 */
import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import semver from 'semver';

interface LockedPackage {
  readonly version?: string;
  readonly dev?: boolean;
  readonly engines?: { readonly node?: string } | readonly string[];
}

const root = new URL('../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as { packages: Record<string, LockedPackage> };

test('every installed package runs on the oldest Node that package.json promises, development tools included', () => {
  const oldest = semver.minVersion(manifest.engines.node);
  assert.ok(oldest, `engines.node ${manifest.engines.node} names no version`);
  const refusing: string[] = [];
  for (const [path, locked] of Object.entries(lock.packages)) {
    const wanted = locked.engines && !Array.isArray(locked.engines) ? (locked.engines as { node?: string }).node : undefined;
    if (path === '' || wanted === undefined) continue;
    if (!semver.satisfies(oldest, wanted)) refusing.push(`${path.replace(/^.*node_modules\//, '')}@${locked.version} wants node ${wanted}`);
  }
  assert.deepEqual(refusing, [], `packages that refuse Node ${oldest.version}`);
});

test('the lockfile records engines for the packages that declare them (the check above has something to check)', () => {
  const withEngines = Object.values(lock.packages).filter((locked) => locked.engines !== undefined).length;
  assert.ok(withEngines > 100, `only ${withEngines} locked packages carry engines`);
});
