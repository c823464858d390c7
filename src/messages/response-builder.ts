import { CATALOGUE_NAMESPACE } from './catalogue-namespace.ts';
import type { ApplyOutcome } from './message-type.ts';
import { element } from './xml-writer.ts';

/**
 * Writes a response document (any *Response, or MessageRejected): the header that
 * echoes the request's id, one result per item in the request's order, and the
 * errors that rejected the whole document. The shape is ResponseDocument in Types.xsd;
 * a streamed report's acknowledgement (ReportAcknowledgement) has a summary and its
 * rejected accounts in place of items.
 */
export type DocumentStatus = 'Accepted' | 'PartiallyAccepted' | 'Rejected';

export interface ResponseInput {
  readonly responseName: string;
  readonly gatewayMessageId: string;
  readonly inResponseTo?: string | undefined;
  readonly createdAt: Date;
  readonly outcome: ApplyOutcome;
}

export function documentStatus(outcome: ApplyOutcome): DocumentStatus {
  if (outcome.errors.length > 0) return 'Rejected';
  if (outcome.report) {
    const { accountsAccepted, accountsReceived } = outcome.report;
    if (accountsAccepted === 0) return 'Rejected';
    return accountsAccepted === accountsReceived ? 'Accepted' : 'PartiallyAccepted';
  }
  const accepted = outcome.items.filter((item) => item.status === 'Accepted').length;
  if (accepted === outcome.items.length && accepted > 0) return 'Accepted';
  return accepted === 0 ? 'Rejected' : 'PartiallyAccepted';
}

export function buildResponse(input: ResponseInput): string {
  const parts: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>\n',
    `<${input.responseName} xmlns="${CATALOGUE_NAMESPACE}">\n`,
    '  <Header>\n',
    element('GatewayMessageId', input.gatewayMessageId, '    '),
    element('InResponseTo', input.inResponseTo, '    '),
    element('CreatedAt', input.createdAt.toISOString(), '    '),
    element('Status', documentStatus(input.outcome), '    '),
    '  </Header>\n',
  ];
  const { report } = input.outcome;
  if (report) {
    parts.push(
      '  <Summary>\n',
      element('AccountsReceived', report.accountsReceived, '    '),
      element('AccountsAccepted', report.accountsAccepted, '    '),
      element('AccountsRejected', report.accountsReceived - report.accountsAccepted, '    '),
      element('RecordsLoaded', report.recordsLoaded, '    '),
      '  </Summary>\n',
    );
    for (const account of report.rejected) {
      parts.push(
        '  <RejectedAccount>\n',
        element('AccountNumber', account.accountNumber, '    '),
        element('Code', account.code, '    '),
        element('Text', truncate(account.text, 1000), '    '),
        element('Line', account.line, '    '),
        '  </RejectedAccount>\n',
      );
    }
  }
  for (const item of input.outcome.items) {
    parts.push(
      '  <Item>\n',
      element('ItemId', item.itemId, '    '),
      element('Status', item.status, '    '),
      element('Reference', item.reference, '    '),
      element('Code', item.code, '    '),
      element('Text', item.text, '    '),
      '  </Item>\n',
    );
  }
  for (const error of input.outcome.errors) {
    parts.push(
      '  <Error>\n',
      element('Code', error.code, '    '),
      element('Text', truncate(error.text, 1000), '    '),
      element('Line', error.line, '    '),
      element('Element', error.element, '    '),
      '  </Error>\n',
    );
  }
  parts.push(`</${input.responseName}>\n`);
  return parts.join('');
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The deterministic file name of a response: <request stem>.<message id>.<ResponseName>.xml */
export function responseFileName(requestName: string, messageId: string, responseName: string): string {
  const stem = requestName.replace(/\.xml$/i, '').replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100) || 'document';
  return `${stem}.${messageId}.${responseName}.xml`;
}
