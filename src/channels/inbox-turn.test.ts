import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { WaitingFiles, type Look } from './inbox-turn.ts';

const complete = (name: string, mtimeMs: number): Look => ({ name, size: 10, mtimeMs, unchangedSince: 0, dueAt: 0 });
const writing = (name: string, mtimeMs: number): Look => ({ name, size: 10, mtimeMs, unchangedSince: 0, dueAt: 5_000 });
const unseen = (name: string): Look => ({ name, size: -1, mtimeMs: 0, unchangedSince: 0, dueAt: 1 });
const names = (looks: readonly Look[]) => looks.map((look) => look.name);

/** The turn WaitingFiles gives for files reported in this order and looked at as `looks` say (size -1: not looked at yet). */
function filesThatMayGo(looks: readonly Look[]): Look[] {
  const files = new WaitingFiles();
  for (const look of looks) files.add(look.name, 1);
  const reported = new Map(files.dueBy(1).map((look) => [look.name, look]));
  for (const look of looks) {
    if (look.size < 0) continue;
    const waiting = reported.get(look.name)!;
    Object.assign(waiting, { size: look.size, mtimeMs: look.mtimeMs, dueAt: look.dueAt });
    files.looked(waiting);
  }
  return files.takeTurn(Infinity);
}

test('complete files go oldest first, whatever order they were found in', () => {
  assert.deepEqual(names(filesThatMayGo([complete('c', 1002), complete('a', 1000), complete('b', 1001)])), ['a', 'b', 'c']);
});

test('a turn holds only the files older than every file still being written', () => {
  const waiting = [complete('young', 3000), writing('writing', 2000), complete('old', 1000)];
  assert.deepEqual(names(filesThatMayGo(waiting)), ['old'], 'young waits for the older file still being written');
});

test('a file still being written with a newer mtime does not hold back an older complete one', () => {
  assert.deepEqual(names(filesThatMayGo([writing('slow', 5000), complete('done', 4000)])), ['done']);
});

test('a file not looked at yet holds every other back', () => {
  assert.deepEqual(names(filesThatMayGo([unseen('unknown'), complete('ready', 4000)])), []);
});

test('equal mtimes go in name order', () => {
  assert.deepEqual(names(filesThatMayGo([complete('02.xml', 7), complete('01.xml', 7)])), ['01.xml', '02.xml']);
});

test('nothing waiting, nothing goes', () => {
  assert.deepEqual(filesThatMayGo([]), []);
  assert.deepEqual(filesThatMayGo([writing('only', 1)]), []);
});

test('waiting files: looked at when due, taken in arrival order, never past a file still being written', () => {
  const files = new WaitingFiles();
  for (const name of ['c.xml', 'a.xml', 'b.xml', 'w.xml']) files.add(name, 1000);
  assert.deepEqual(files.dueBy(1000).map((look) => look.name), ['c.xml', 'a.xml', 'b.xml', 'w.xml']);
  assert.deepEqual(files.takeTurn(10), [], 'nothing goes before its first look');
  const looks = new Map(files.dueBy(1000).map((look) => [look.name, look]));
  const stable = (name: string, mtimeMs: number) => {
    const look = looks.get(name)!;
    Object.assign(look, { size: 10, mtimeMs, dueAt: 0 });
    files.looked(look);
  };
  stable('c.xml', 300);
  stable('a.xml', 100);
  stable('b.xml', 200);
  Object.assign(looks.get('w.xml')!, { size: 5, mtimeMs: 250, dueAt: 1500 });
  files.looked(looks.get('w.xml')!);
  assert.equal(files.nextDue(), 1500);
  assert.deepEqual(files.dueBy(1000), []);
  assert.deepEqual(names(files.takeTurn(1)), ['a.xml'], 'the oldest, within the limit');
  assert.deepEqual(names(files.takeTurn(10)), ['b.xml'], 'c.xml waits for w.xml, older and still being written');
  stable('w.xml', 250);
  assert.deepEqual(names(files.takeTurn(10)), ['w.xml', 'c.xml']);
  assert.equal(files.size, 0);
});

test('waiting files: a complete file reported changed is looked at again, and one gone is forgotten', () => {
  const files = new WaitingFiles();
  files.add('x.xml', 0);
  const [look] = files.dueBy(0);
  Object.assign(look!, { size: 1, mtimeMs: 5, dueAt: 0 });
  files.looked(look!);
  assert.equal(files.changed('x.xml'), true);
  assert.deepEqual(files.takeTurn(10), [], 'looked at again before it may go');
  assert.deepEqual(names(files.dueBy(10)), ['x.xml']);
  files.remove(look!);
  assert.equal(files.size, 0);
  assert.equal(files.changed('x.xml'), false);
});
