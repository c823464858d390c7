// Whether the compiled build in <root>/dist is current: stamped (dist/.built) no earlier
// than the last change to any non-test source file under <root>/src. An installation
// without sources (the container image) counts as current.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function buildIsCurrent(root) {
  let built;
  try {
    built = statSync(join(root, 'dist', '.built')).mtimeMs;
  } catch {
    return false;
  }
  const newest = (folder) =>
    readdirSync(folder, { withFileTypes: true }).reduce((latest, entry) => {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) return Math.max(latest, newest(path));
      return entry.name.endsWith('.test.ts') ? latest : Math.max(latest, statSync(path).mtimeMs);
    }, 0);
  return !existsSync(join(root, 'src')) || newest(join(root, 'src')) <= built;
}
