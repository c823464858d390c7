import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { BoundedMap } from './hand-off.ts';

const text = () => new BoundedMap<string>(10, (value) => value.length);

test('a hand-off keeps values up to its bound and gives up the oldest first', () => {
  const map = text();
  map.set('a', 'aaaa');
  map.set('b', 'bbbb');
  assert.deepEqual([map.size, map.bytes], [2, 8]);
  map.set('c', 'cccc'); // 12 bytes: the oldest goes
  assert.equal(map.get('a'), undefined);
  assert.deepEqual([map.get('b'), map.get('c'), map.bytes], ['bbbb', 'cccc', 8]);
});

test('a value larger than the whole bound is not kept, and does not push out the others', () => {
  const map = text();
  map.set('a', 'aaaa');
  map.set('huge', 'x'.repeat(11));
  assert.equal(map.has('huge'), false);
  assert.deepEqual([map.get('a'), map.bytes], ['aaaa', 4]);
});

test('setting a key again replaces its value and its weight; deleting frees it', () => {
  const map = text();
  map.set('a', 'aaaaaaaa');
  map.set('a', 'aa');
  assert.deepEqual([map.get('a'), map.size, map.bytes], ['aa', 1, 2]);
  map.delete('a');
  map.delete('never-set');
  assert.deepEqual([map.size, map.bytes], [0, 0]);
});
