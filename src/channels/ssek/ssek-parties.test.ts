import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { configSchema } from '../../config/config.schema.ts';
import { isGatewayError } from '../../core/gateway-error.ts';
import { SsekDirectory } from './ssek-parties.ts';

test('a directory built from a configuration that skipped the start check refuses a sender with no certificate registered: its SenderId alone is not believed', () => {
  // configSchema alone, not loadConfig: the cross check that refuses this configuration at start is bypassed on purpose.
  const config = configSchema.parse({
    counterparties: [{ id: 'bare-employer', name: 'Bare Employer AB', organisationNumber: '5561234567', role: 'employer', ssek: {} }],
  });
  const directory = new SsekDirectory(config);
  assert.throws(() => directory.identify({ type: 'ORGNR', value: '5561234567' }, undefined), (error: unknown) => {
    assert.ok(isGatewayError(error));
    assert.equal(error.code, 'SSEK_NOT_AUTHENTICATED');
    assert.match(error.message, /"5561234567" \(type ORGNR\) has no client certificate or signing certificate registered/);
    return true;
  });
});
