import { maskPersonalIdentityNumbers } from '../core/identifiers.ts';
import type { NoticeRecipient } from '../ledger/advice/application-notices.repository.ts';

/**
 * The text of a notice that an application went to manual review, for the advisor
 * who made it or for the customer (the policyholder, or the employer's contact).
 *
 * It names the application (id, product, when it was submitted), says that the
 * insurer reviews it by hand and what happens next — and nothing more personal than
 * that: no premium, no funds, no reasons for the review (the advisor reads those in the
 * API), and the policyholder's personal identity number only masked to the date of
 * birth (`19700101-****`) in the advisor's mail.
 */
export interface NoticeToMail {
  readonly applicationId: string;
  readonly recipient: NoticeRecipient;
  readonly kind: 'insurance' | 'plan';
  readonly productId: string;
  readonly productName: string;
  readonly submittedAt: Date;
  /** The policyholder's personnummer or organisationsnummer, or the employer's organisationsnummer. */
  readonly customerId: string;
  /** A plan's employer as the application names it. */
  readonly employerName: string | null;
  readonly advisorName: string | null;
  readonly firmName: string | null;
}

// Submission times as a Swede reads them: 2026-11-25 10:30.
const STOCKHOLM_TIME = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Stockholm', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' });

const CLOSING = ['This message was sent automatically; replies to it are not read.', ''];

export function applicationNoticeText(notice: NoticeToMail): { subject: string; text: string } {
  const [date, time] = STOCKHOLM_TIME.format(notice.submittedAt).split(' ');
  const product = `${notice.productName} (${notice.productId})`;
  const submitted = `${date} at ${time} (Swedish time)`;
  return notice.recipient === 'advisor' ? advisorText(notice, product, submitted) : customerText(notice, product, submitted);
}

function advisorText(notice: NoticeToMail, product: string, submitted: string): { subject: string; text: string } {
  const plan = notice.kind === 'plan';
  const statusPath = plan ? `GET /PlanApplication/${notice.applicationId}` : `GET /InsuranceApplication/${notice.applicationId}`;
  return {
    subject: `Application ${notice.applicationId} is under manual review`,
    text: [
      `Hello${notice.advisorName ? ` ${notice.advisorName}` : ''},`,
      '',
      'An application you submitted is under manual review by the insurer:',
      '',
      `  Application:  ${notice.applicationId}`,
      `  Product:      ${product}`,
      plan
        ? `  Employer:     ${notice.employerName ?? '-'} (${notice.customerId})`
        : `  Policyholder: ${maskPersonalIdentityNumbers(notice.customerId)}`,
      `  Submitted:    ${submitted}`,
      '',
      'What happens next:',
      plan
        ? "- The insurer's staff approve or decline the application. Once it is approved, the agreement and the employees' insurances are set up at once."
        : "- The insurer's staff approve or decline the application. Once it is approved, the insurance is issued at once.",
      `- You can follow its status, and the reason for the review, with ${statusPath} in the advisor API.`,
      `- The ${plan ? "employer's contact" : 'policyholder'} is told of the review by e-mail as well when the application gives an address.`,
      '',
      ...CLOSING,
    ].join('\n'),
  };
}

function customerText(notice: NoticeToMail, product: string, submitted: string): { subject: string; text: string } {
  const plan = notice.kind === 'plan';
  const through = notice.firmName ? ` through ${notice.firmName}` : '';
  const advisor = notice.firmName ? `your advisor at ${notice.firmName}` : 'your advisor';
  return {
    subject: `Your ${plan ? 'pension plan' : 'insurance'} application ${notice.applicationId} is being reviewed`,
    text: [
      'Hello,',
      '',
      plan
        ? `We have received the application for an occupational pension plan for ${notice.employerName ?? 'your company'}, made${through}:`
        : `We have received the insurance application made for you${through}:`,
      '',
      `  Application: ${notice.applicationId}`,
      `  Product:     ${product}`,
      `  Submitted:   ${submitted}`,
      '',
      plan
        ? "Before we set up the plan and the employees' insurances, our staff review the application by hand."
        : 'Before we issue the insurance, our staff review the application by hand.',
      'We review some applications this way; it does not mean that anything is wrong with yours.',
      '',
      'What happens next:',
      '- You do not need to do anything now.',
      `- If we need more information, we or ${advisor} will contact you.`,
      plan
        ? "- Once the review is done, the plan is either set up or declined; your advisor sees the outcome."
        : '- Once the review is done, the application is either approved and the insurance issued, or declined; your advisor sees the outcome.',
      '',
      `If you have questions about the application, please contact ${advisor}.`,
      '',
      ...CLOSING,
    ].join('\n'),
  };
}
