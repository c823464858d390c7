/**
 * Builds Holdings and Transactions reports for tests and the benchmark: the same
 * shape a custodian sends, with as many accounts and positions as asked.
 */
export interface PositionSpec {
  readonly isin: string;
  readonly quantity: string;
  readonly marketValue: string;
  readonly currency?: string;
}

export interface HoldingsAccountSpec {
  readonly accountNumber: string;
  readonly cash: string;
  readonly positions: readonly PositionSpec[];
}

/** A custodian report's start: declaration, root start tag, header and its date element (AsOfDate, Year). */
export function reportHead(
  root: 'Holdings' | 'Transactions' | 'CostAndCharges',
  messageId: string,
  [dateElement, date]: readonly [string, string | number],
  { createdAt = '2026-11-20T06:10:00+01:00', custodianOrganisationNumber = '5560000001' } = {},
): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<${root} xmlns="urn:se:depot-gateway:v1">`,
    '  <Header>',
    `    <MessageId>${messageId}</MessageId>`,
    `    <CreatedAt>${createdAt}</CreatedAt>`,
    `    <CustodianOrganisationNumber>${custodianOrganisationNumber}</CustodianOrganisationNumber>`,
    '  </Header>',
    `  <${dateElement}>${date}</${dateElement}>`,
  ].join('\n');
}

export function holdingsHead(messageId: string, asOfDate: string, custodianOrganisationNumber = '5560000001'): string {
  return `${reportHead('Holdings', messageId, ['AsOfDate', asOfDate], { custodianOrganisationNumber })}\n`;
}

export function holdingsAccount(account: HoldingsAccountSpec): string {
  const positions = account.positions.map((p) =>
    `    <Position><Isin>${p.isin}</Isin><Quantity>${p.quantity}</Quantity><MarketValue>${p.marketValue}</MarketValue>${p.currency ? `<InstrumentCurrency>${p.currency}</InstrumentCurrency>` : ''}</Position>\n`);
  return `  <Account>\n    <AccountNumber>${account.accountNumber}</AccountNumber>\n    <Cash>${account.cash}</Cash>\n${positions.join('')}  </Account>\n`;
}

export function holdingsReport(messageId: string, asOfDate: string, accounts: readonly (HoldingsAccountSpec | string)[], custodian?: string): string {
  const body = accounts.map((a) => (typeof a === 'string' ? a : holdingsAccount(a))).join('');
  return `${holdingsHead(messageId, asOfDate, custodian)}${body}</Holdings>\n`;
}

export interface TransactionSpec {
  readonly id: string;
  readonly type: string;
  readonly tradeDate: string;
  readonly settlementDate?: string;
  readonly isin?: string;
  readonly quantity?: string;
  readonly amount: string;
  readonly currency?: string;
}

export function transactionsReport(messageId: string, asOfDate: string, accounts: readonly { accountNumber: string; transactions: readonly TransactionSpec[] }[]): string {
  const body = accounts.map((a) => [
    '  <Account>',
    `    <AccountNumber>${a.accountNumber}</AccountNumber>`,
    ...a.transactions.map((t) => [
      '    <Transaction>',
      `      <TransactionId>${t.id}</TransactionId>`,
      `      <Type>${t.type}</Type>`,
      `      <TradeDate>${t.tradeDate}</TradeDate>`,
      `      <SettlementDate>${t.settlementDate ?? t.tradeDate}</SettlementDate>`,
      ...(t.isin ? [`      <Isin>${t.isin}</Isin>`] : []),
      ...(t.quantity ? [`      <Quantity>${t.quantity}</Quantity>`] : []),
      `      <Amount${t.currency ? ` currency="${t.currency}"` : ''}>${t.amount}</Amount>`,
      '    </Transaction>',
    ].join('\n')),
    '  </Account>',
  ].join('\n'));
  return [reportHead('Transactions', messageId, ['AsOfDate', asOfDate]), ...body, '</Transactions>', ''].join('\n');
}
