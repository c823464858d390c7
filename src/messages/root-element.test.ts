import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { readRootElement } from './root-element.ts';

const read = (xml: string) => readRootElement(Buffer.from(xml));

test('the root element is named after the prolog, a comment, a processing instruction or a DOCTYPE', () => {
  assert.equal(read('<?xml version="1.0"?>\n<!-- <NotThis/> -->\n<SalaryAdjustment xmlns="urn:se:depot-gateway:v1"><Header/></SalaryAdjustment>'), 'SalaryAdjustment');
  assert.equal(read('<!DOCTYPE x [<!ENTITY a "<Inner>">]><dg:Holdings xmlns:dg="urn:se:depot-gateway:v1"/>'), 'Holdings');
  assert.equal(read('<ChangeFee>'), 'ChangeFee');
});

test('bytes that are not XML, or whose root lies past the first 4 KiB, name none', () => {
  assert.equal(read('not xml at all'), undefined);
  assert.equal(read(''), undefined);
  assert.equal(read(`<!--${' '.repeat(5000)}--><ChangeFee/>`), undefined);
});
