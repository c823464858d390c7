import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { authenticateMail } from './mail-authentication.ts';

const SERVER = 'mx.insurer.example';
const FROM = 'hr@employer.example';

test('a DMARC, aligned DKIM or aligned SPF pass from the insurer\'s receiving server authenticates the From domain', () => {
  assert.deepEqual(authenticateMail([`${SERVER}; dmarc=pass (p=reject) header.from=employer.example`], FROM, SERVER), { ok: true, by: 'dmarc=pass for employer.example' });
  assert.deepEqual(authenticateMail([`${SERVER} 1; dkim=pass (2048-bit key) header.d=mail.employer.example header.s=sel1; spf=fail smtp.mailfrom=x@other.example`], FROM, SERVER),
    { ok: true, by: 'dkim=pass by mail.employer.example' });
  assert.deepEqual(authenticateMail([`${SERVER};\r\n\tspf=pass smtp.mailfrom="bounce@Employer.Example"`], 'HR@employer.example', SERVER), { ok: true, by: 'spf=pass for bounce@Employer.Example' });
  assert.deepEqual(authenticateMail([`${SERVER}; dkim=pass header.i=@employer.example`], FROM, SERVER), { ok: true, by: 'dkim=pass by employer.example' });
});

test('a pass for another domain, a failure, or results from another server do not', () => {
  const refused = (values: string[]) => {
    const result = authenticateMail(values, FROM, SERVER);
    assert.equal(result.ok, false, values.join(' | '));
    return result.ok ? '' : result.detail;
  };
  assert.match(refused([`${SERVER}; dkim=pass header.d=attacker.example; spf=pass smtp.mailfrom=a@attacker.example; dmarc=fail header.from=employer.example`]),
    /no DMARC, DKIM or SPF pass for employer\.example from mx\.insurer\.example \(found: dkim=pass \(attacker\.example\), spf=pass \(a@attacker\.example\), dmarc=fail \(employer\.example\)\)/);
  // Written by the sender (or a server on the way) under another name: not ours, not believed.
  assert.match(refused(['mx.attacker.example; dmarc=pass header.from=employer.example']), /no Authentication-Results from mx\.insurer\.example/);
  assert.match(refused([]), /no Authentication-Results from mx\.insurer\.example/);
  assert.match(refused([`${SERVER}; none`]), /found: no verdicts/);
  // A comment that looks like a verdict is a comment.
  assert.match(refused([`${SERVER}; dkim=fail (dkim=pass header.d=employer.example) header.d=employer.example`]), /found: dkim=fail/);
  // A top-level domain aligns with nothing.
  assert.match(refused([`${SERVER}; spf=pass smtp.mailfrom=x@example`]), /found: spf=pass/);
  assert.deepEqual(authenticateMail([`${SERVER}; dmarc=pass header.from=employer.example`], undefined, SERVER), { ok: false, detail: 'the mail has no From address to authenticate' });
});
