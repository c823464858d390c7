import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { MAX_REMOTE_NAME_BYTES, remoteNameProblem } from './remote-file-name.ts';

test('plain file names are taken, whatever their letters', () => {
  // An encoded separator (`%2f`) is only letters here: nothing decodes it into a path.
  const names = ['fees-2026-11.xml', 'Löneändring 2026.xml', 'a', '..hidden.xml', 'x..y.xml', '..%2f..', `${'ÅÄÖ'.repeat(32)}.xml`, 'n'.repeat(MAX_REMOTE_NAME_BYTES)];
  for (const name of names) {
    assert.equal(remoteNameProblem(name), undefined, name);
  }
});

test('paths, dot names, control characters and overlong names are refused, each with its reason', () => {
  const refused: Record<string, string> = {
    '': 'it is not a file name',
    '.': 'it is not a file name',
    '..': 'it is not a file name',
    '../../etc/cron.d/x': 'it holds a path separator',
    '/etc/passwd': 'it holds a path separator',
    'sub/fees.xml': 'it holds a path separator',
    '..\\..\\windows\\fees.xml': 'it holds a path separator',
    'fees.xml\0.txt': 'it holds a control character',
    'fees\n2026-11-22 INFO forged.xml': 'it holds a control character',
    'fees\r.xml': 'it holds a control character',
    'fees\t.xml': 'it holds a control character',
    '\x1b[31mred.xml': 'it holds a control character',
    'del\x7f.xml': 'it holds a control character',
    'c1\u0085.xml': 'it holds a control character',
    ['n'.repeat(MAX_REMOTE_NAME_BYTES + 1)]: `it is longer than ${MAX_REMOTE_NAME_BYTES} bytes`,
    // 101 two-byte letters: 101 characters, 202 bytes.
    ['ö'.repeat(101)]: `it is longer than ${MAX_REMOTE_NAME_BYTES} bytes`,
  };
  for (const [name, reason] of Object.entries(refused)) assert.equal(remoteNameProblem(name), reason, JSON.stringify(name));
});
