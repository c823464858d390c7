import { test } from '@jest/globals';
import assert from 'node:assert/strict';
import { dropAccessTokens, maskAccountField, maskBankAccountNumber, maskBankAccounts, maskLogLine } from './log-masking.ts';

const JWT = 'eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJmaXJtIiwiZXhwIjoxNzk1NjA0NzA3fQ.MEUCIQDx-3_kq0Yt';

test('a bank account is masked to its clearing number, separators kept', () => {
  assert.equal(maskBankAccountNumber('50001234560'), '5000*******');
  assert.equal(maskBankAccountNumber('5000-1234560'), '5000-*******');
  assert.equal(maskBankAccountNumber('83279931432489'), '8327**********');
});

test('access tokens are dropped from a query string, a JSON member, a Bearer header and wherever a JWT stands', () => {
  const cases: [string, string][] = [
    [`/Customer/x/WithdrawalAccount?access_token=${JWT}&wait=1`, '/Customer/x/WithdrawalAccount?access_token=[dropped]&wait=1'],
    ['/Product?ACCESS_TOKEN=opaque-token-value', '/Product?ACCESS_TOKEN=[dropped]'],
    ['https://gw/Product%3Faccess_token%3Dopaque', 'https://gw/Product%3Faccess_token%3D[dropped]'],
    ['{"access_token":"opaque-value","token_type":"Bearer"}', '{"access_token":"[dropped]","token_type":"Bearer"}'],
    ['{"err":"body {\\"access_token\\":\\"opaque\\"}"}', '{"err":"body {\\"access_token\\":\\"[dropped]\\"}"}'],
    ['sent Authorization: Bearer abc.def-ghi_jkl= to the API', 'sent Authorization: Bearer [dropped] to the API'],
    ['{"headers":{"authorization":"Basic ZmlybTpmaXJtLXNlY3JldA=="}}', '{"headers":{"authorization":"Basic [dropped]"}}'],
    ['{"authorization":"opaque"}', '{"authorization":"[dropped]"}'],
    [`token ${JWT} refused`, 'token [dropped] refused'],
  ];
  for (const [text, dropped] of cases) {
    assert.equal(dropAccessTokens(text), dropped, text);
    assert.equal(dropAccessTokens(dropped), dropped, `dropping again changes nothing: ${dropped}`);
  }
});

test('what only mentions a token is left alone: a challenge, a token type, the word in prose', () => {
  for (const text of [
    'www-authenticate: Bearer realm="depot-gateway", error="invalid_token"',
    '{"www-authenticate":"Bearer realm=\\"depot-gateway\\""}',
    '{"token_type":"Bearer","expires_in":300}',
    'the client has no authorization for AGR-1001',
    '/oauth/token answered 401',
  ]) assert.equal(dropAccessTokens(text), text, text);
});

test('accounts in the withdrawal paths and accountNumber members are masked to their clearing number', () => {
  const cases: [string, string][] = [
    ['{"req":{"method":"POST","url":"/Customer/50001234560/WithdrawalAccount"}}', '{"req":{"method":"POST","url":"/Customer/5000*******/WithdrawalAccount"}}'],
    ['GET /Customer/83279931432489/WithdrawalInformation?x=1', 'GET /Customer/8327**********/WithdrawalInformation?x=1'],
    ['Route GET:/customer/5000-1234560/withdrawalaccount not found', 'Route GET:/customer/5000-*******/withdrawalaccount not found'],
    ['{"accountNumber":"50001234560","amount":"12500.00"}', '{"accountNumber":"5000*******","amount":"12500.00"}'],
    ['{"msg":"{\\"accountNumber\\":\\"60001234567890\\"}"}', '{"msg":"{\\"accountNumber\\":\\"6000**********\\"}"}'],
    ['accountNumber=5000 1234560', 'accountNumber=5000 *******'],
  ];
  for (const [text, masked] of cases) assert.equal(maskBankAccounts(text), masked, text);
});

test('other numbers stay: customers in other paths, custody accounts, insurance numbers, amounts, message ids, organisation numbers', () => {
  for (const text of [
    '/Customer/5565555553/InsuranceApplications',
    '/Insurance/INS-200001/withdrawalInformation',
    '/Insurance/withdrawalrequest/WR-01JD8Z3Q4X5Y6Z7A8B9C0D1E2F',
    '{"held":[{"accountNumber":"DEPA-100001","insuranceNumber":"INS-200001"}]}',
    '{"amount":"12500.00","messageId":"01JD8Z3Q4X5Y6Z7A8B9C0D1E2F","organisationNumber":"5565555553","accounts":12}',
  ]) assert.equal(maskLogLine(text), text, text);
});

test('a whole line: token, account and personal identity number each masked; an account is not read as a person', () => {
  const line = `{"level":30,"req":{"url":"/Customer/90010112345/WithdrawalAccount?access_token=${JWT}"},"customerId":"198506152381","msg":"incoming request"}`;
  assert.equal(maskLogLine(line), '{"level":30,"req":{"url":"/Customer/9001*******/WithdrawalAccount?access_token=[dropped]"},"customerId":"19850615-****","msg":"incoming request"}');
  assert.equal(maskLogLine('{"url":"/Customer/9001011234/WithdrawalInformation"}'), '{"url":"/Customer/9001******/WithdrawalInformation"}',
    'ten digits that read as a date of birth are masked as the account they are');
  const written = JSON.parse(maskLogLine(line)) as { req: { url: string } };
  assert.match(written.req.url, /^\/Customer\/9001\*+\//, 'the line is still JSON');
});

test('fields named for an account: bank accounts masked, custody accounts and counts as they were', () => {
  assert.equal(maskAccountField('50001234560'), '5000*******');
  assert.equal(maskAccountField(50001234560), '5000*******');
  assert.equal(maskAccountField('5000 1234560'), '5000 *******');
  assert.equal(maskAccountField({ clearingNumber: '5000', accountNumber: '1234560', bankName: 'SEB', digits: '50001234560' }), '5000*******');
  assert.equal(maskAccountField('DEPA-100001'), 'DEPA-100001');
  assert.equal(maskAccountField(12), 12);
  assert.equal(maskAccountField(undefined), undefined);
});

test("the signing page's link token is dropped from a /sign/ path, wherever it stands in the query; other t= stay", () => {
  const cases: [string, string][] = [
    ['{"req":{"url":"/sign/SC-01JD8Z3Q?t=Qm9vLXRva2VuLXZhbHVlXzEyMw&lang=en"}}', '{"req":{"url":"/sign/SC-01JD8Z3Q?t=[dropped]&lang=en"}}'],
    ['GET /sign/SC-1?lang=en&device=other&t=abc_DEF-123', 'GET /sign/SC-1?lang=en&device=other&t=[dropped]'],
    ['https://sign.example.se/sign/SC-1?t=abc#top', 'https://sign.example.se/sign/SC-1?t=[dropped]#top'],
    ['/sign/SC-1%3Ft%3Dabc', '/sign/SC-1%3Ft%3Dabc'],
    ['/sign/SC-1?t%3Dabc', '/sign/SC-1?t%3D[dropped]'],
  ];
  for (const [text, dropped] of cases) {
    assert.equal(maskLogLine(text), dropped, text);
    assert.equal(maskLogLine(dropped), dropped, `dropping again changes nothing: ${dropped}`);
  }
  assert.equal(maskLogLine('/SignCase/SC-1/Sign?t=1 and /console/messages?t=2'), '/SignCase/SC-1/Sign?t=1 and /console/messages?t=2');
});

test("a direct query's customer is masked to its first six digits, a personnummer or an organisation number; the word elsewhere changes nothing", () => {
  assert.equal(maskLogLine('{"url":"/DirectQuery/5561234567","statusCode":200}'), '{"url":"/DirectQuery/556123****","statusCode":200}');
  assert.equal(maskLogLine('{"url":"/DirectQuery/197001011233"}'), '{"url":"/DirectQuery/197001****"}');
  assert.equal(maskLogLine('GET /directquery/5561234567?x=1'), 'GET /directquery/556123****?x=1');
  assert.equal(maskLogLine('{"msg":"DirectQuery answered","customers":1}'), '{"msg":"DirectQuery answered","customers":1}');
});
