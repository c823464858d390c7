import { maskPersonalIdentityNumbers } from '../core/identifiers.ts';
import { swedishPeriod } from '../core/payout-request.rules.ts';
import type { TextPdfSection } from '../documents/text-pdf.ts';

/**
 * What the insured is told when payout can begin, by mail or by letter, and the copy
 * customer service gets.
 *
 * The notice to the insured is in Swedish, as the BankID text they sign to start the
 * payout: it names the insurance, the day payout can begin, the periods the product
 * offers and how to start it — register the account, then a payout request through the
 * advisor's or the custodian's service, signed with BankID (or the insurer's paper
 * form). The mail names the insured by name only (a personnummer does not travel by
 * e-mail); the letter, printed and posted, carries the personnummer the print room
 * addresses it by (the ledger holds no postal addresses: they come from the population
 * register). The copy to customer service is in English, as the insurer's other staff
 * mail, and names each insured by name and date of birth (the personnummer masked,
 * `19700101-****`, as in every mail the gateway sends; the console shows the insurance).
 */
export interface InsuredNotice {
  readonly insuranceNumber: string;
  readonly insuredPin: string;
  readonly insuredName: string | null;
  readonly productName: string;
  readonly custodyAccount: string;
  readonly canBegin: string;
  /** The payout periods the product offers, in months. */
  readonly offeredMonths: readonly number[];
  /** An occupational pension: the insured signs alone. */
  readonly occupational: boolean;
}

const CLOSING = ['Med vänliga hälsningar', 'Kundservice'];

function howToStart(notice: InsuredNotice): string[] {
  const periods = notice.offeredMonths.map(swedishPeriod);
  const choice = periods.length > 1 ? `${periods.slice(0, -1).join(', ')} eller ${periods.at(-1)}` : periods[0] ?? '';
  return [
    `1. Välj hur länge utbetalningen ska pågå: ${choice}, och från vilken månad. Pengarna betalas ut varje månad, senast den 22:a.`,
    '2. Registrera det bankkonto pengarna ska betalas till, i ditt eget namn, hos din rådgivare eller hos banken där depån finns. Ett konto som registreras före klockan 07.00 en bankdag är kontrollerat klockan 13.00 samma dag.',
    `3. Be din rådgivare eller banken att skicka en begäran om utbetalning med utbetalningstid, första månad och konto. Du signerar den med BankID${notice.occupational ? '' : ' (och försäkringstagaren, om försäkringen ägs av någon annan än du)'}; när den är signerad är utbetalningen registrerad.`,
    '4. Utan BankID: fyll i vår blankett för utbetalning och skicka den till oss.',
  ];
}

/** The mail to the insured. */
export function insuredNoticeMail(notice: InsuredNotice): { subject: string; text: string } {
  return {
    subject: `Din utbetalning kan börja – försäkring ${notice.insuranceNumber}`,
    text: [
      `Hej${notice.insuredName ? ` ${notice.insuredName}` : ''},`,
      '',
      `Från och med ${notice.canBegin} kan utbetalningen från din försäkring ${notice.insuranceNumber} (${notice.productName}, depå ${notice.custodyAccount}) börja. Utbetalningen börjar först när du har begärt den.`,
      '',
      'Så startar du utbetalningen:',
      ...howToStart(notice),
      '',
      ...CLOSING,
      '',
      'Meddelandet skickades automatiskt; svar på det läses inte.',
      '',
    ].join('\n'),
  };
}

/** The letter to the insured (documents/text-pdf.ts makes the PDF): addressed by name and personnummer. */
export function insuredNoticeLetter(notice: InsuredNotice): { title: string; sections: TextPdfSection[] } {
  const pin = `${notice.insuredPin.slice(0, 8)}-${notice.insuredPin.slice(8)}`;
  return {
    title: 'Din utbetalning kan börja',
    sections: [
      { lines: [notice.insuredName ?? 'Till den försäkrade', `Personnummer ${pin}`] },
      {
        heading: `Försäkring ${notice.insuranceNumber}`,
        lines: [
          `${notice.productName}, depå ${notice.custodyAccount}.`,
          `Från och med ${notice.canBegin} kan utbetalningen från försäkringen börja. Utbetalningen börjar först när du har begärt den.`,
        ],
      },
      { heading: 'Så startar du utbetalningen', lines: howToStart(notice) },
      { lines: CLOSING },
    ],
  };
}

/** How the insured of a notice was told, as the copy and the staff lists say it. */
export type InsuredNoticeWay = 'mail' | 'letter' | 'not-needed' | 'customer-service';

export interface NoticeCopyLine {
  readonly insuranceNumber: string;
  readonly insuredPin: string;
  readonly insuredName: string | null;
  readonly accountNumber: string | null;
  readonly canBegin: string | null;
  readonly firstMonth: string | null;
  readonly firstAmount: string | null;
  readonly payBy: string | null;
  readonly insuredNotice: InsuredNoticeWay | null;
  readonly insuredAddress: string | null;
}

/** The copy to customer service: every notice of the run, and how each insured was told. */
export function payoutNoticeCopy(notices: readonly NoticeCopyLine[]): { subject: string; text: string } {
  const count = notices.length;
  const lines = notices.map((n) => {
    const who = `- ${n.insuranceNumber} (${n.insuredName ? `${n.insuredName}, ` : ''}${maskPersonalIdentityNumbers(n.insuredPin)}), custody account ${n.accountNumber ?? '-'}`;
    const state = n.firstMonth === null
      ? `payout can begin ${n.canBegin ?? '-'}; not started yet`
      : `from ${n.firstMonth}, ${n.firstAmount ? `first payout ${n.firstAmount} SEK, paid by ${n.payBy}` : 'first payout amount not yet known'}`;
    return `${who}: ${state}; ${toldText(n)}`;
  });
  return {
    subject: `Payout can begin: ${count} insurance${count === 1 ? '' : 's'}`,
    text: [
      `Payout can begin for ${count === 1 ? 'this insurance' : `these ${count} insurances`}. Each insured is told by the gateway:`,
      'by mail where the application gave an address, otherwise by a letter in the print queue (depot-gateway payout-notices --letters; the console\'s payout notices).',
      'The insured starts the payout with a payout request signed with BankID, through the advisor or the custodian; a paper form is registered with depot-gateway payout-start.',
      '',
      ...lines,
      '',
      'depot-gateway payout-notices lists every notice, how the insured was told and when this copy was mailed.',
      '',
    ].join('\n'),
  };
}

function toldText(n: NoticeCopyLine): string {
  switch (n.insuredNotice) {
    case 'mail':
      return `the insured was mailed at ${n.insuredAddress ?? '-'}`;
    case 'letter':
      return `a letter to the insured is in the print queue (depot-gateway payout-notices letter ${n.insuranceNumber})`;
    case 'not-needed':
      return 'the insured was not told: the payout was started, or the insurance ended, first';
    case 'customer-service':
      return 'customer service wrote the letter';
    case null:
      return 'the insured is not told yet';
    default:
      return n.insuredNotice satisfies never;
  }
}
