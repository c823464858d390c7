import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ArrivalSequencer } from './arrival-sequencer.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('files ready out of order go to intake oldest first, in turns', async () => {
  const sequencer = new ArrivalSequencer();
  const order: string[] = [];
  for (const path of ['a', 'b', 'c']) sequencer.register(path);
  sequencer.observe('a', 1000);
  const take = (path: string, mtime: number) => sequencer.turn(path, mtime, path).then(() => order.push(path));
  const c = take('c', 1002);
  const b = take('b', 1001);
  await tick();
  assert.deepEqual(order, [], 'b and c wait: a (older, seen at 1000) is not ready yet');
  const a = take('a', 1000);
  await Promise.all([a, b, c]);
  assert.deepEqual(order, ['a', 'b', 'c'], 'all three are ready: one turn, oldest first');
  for (const path of ['a', 'b', 'c']) sequencer.done(path);
  assert.equal(sequencer.size, 0);
});

test('the next turn begins when every file of the current one is done', async () => {
  const sequencer = new ArrivalSequencer();
  const order: string[] = [];
  for (const path of ['a', 'b']) sequencer.register(path);
  sequencer.observe('b', 1001);
  await sequencer.turn('a', 1000, 'a').then(() => order.push('a'));
  const b = sequencer.turn('b', 1001, 'b').then(() => order.push('b'));
  await tick();
  assert.deepEqual(order, ['a'], 'b waits while a is with intake');
  sequencer.done('a');
  await b;
  assert.deepEqual(order, ['a', 'b']);
  sequencer.done('b');
});

test('a turn holds only the files older than every file still being written', async () => {
  const sequencer = new ArrivalSequencer();
  const order: string[] = [];
  for (const path of ['old', 'writing', 'young']) sequencer.register(path);
  sequencer.observe('writing', 2000);
  const young = sequencer.turn('young', 3000, 'young').then(() => order.push('young'));
  await sequencer.turn('old', 1000, 'old').then(() => order.push('old'));
  await tick();
  assert.deepEqual(order, ['old'], 'young waits for the older file still being written');
  sequencer.done('old');
  const writing = sequencer.turn('writing', 2000, 'writing').then(() => order.push('writing'));
  await Promise.all([writing, young]);
  assert.deepEqual(order, ['old', 'writing', 'young']);
});

test('a file still being written (newer mtime) does not hold back an older complete one', async () => {
  const sequencer = new ArrivalSequencer();
  sequencer.register('slow');
  sequencer.register('done');
  sequencer.observe('slow', 5000);
  let went = false;
  const turn = sequencer.turn('done', 4000, 'done').then(() => (went = true));
  await turn;
  assert.ok(went);
  sequencer.done('done');
});

test('a file not yet looked at holds the line until its first stat, and one that vanishes frees it', async () => {
  const sequencer = new ArrivalSequencer();
  sequencer.register('unknown');
  sequencer.register('ready');
  let went = false;
  const turn = sequencer.turn('ready', 4000, 'ready').then(() => (went = true));
  await tick();
  assert.equal(went, false);
  sequencer.done('unknown'); // gone before it was ever stable
  await turn;
  assert.ok(went);
});

test('equal mtimes go in name order', async () => {
  const sequencer = new ArrivalSequencer();
  const order: string[] = [];
  for (const path of ['/in/02.xml', '/in/01.xml']) sequencer.register(path);
  const second = sequencer.turn('/in/02.xml', 7, '02.xml').then(() => order.push('02'));
  const first = sequencer.turn('/in/01.xml', 7, '01.xml').then(() => order.push('01'));
  await first;
  sequencer.done('/in/01.xml');
  await second;
  sequencer.done('/in/02.xml');
  assert.deepEqual(order, ['01', '02']);
});
