import type { SigningStep } from '../../bankid/hint-codes.ts';
import type { SignatoryRole } from '../../core/withdrawal-request.rules.ts';

/**
 * What the signing page says, in Swedish (the default) and English. The steps of a
 * BankID signing follow hint-codes.ts (its English messages are these); the words are
 * ours, plain, and tell the person what to do next, as BankID's recommended user
 * messages (RFA) do.
 */
export type Language = 'sv' | 'en';

export interface PageTexts {
  readonly title: string;
  readonly intro: string;
  readonly whatYouSign: string;
  readonly whoSigns: string;
  readonly roles: Readonly<Record<SignatoryRole, string>>;
  readonly you: string;
  readonly signedAt: (time: string) => string;
  readonly notSigned: string;
  /** How far the case has come, and whose signatures it waits for: the reader's own (`ownMissing`) and how many in all. */
  readonly waitingFor: (signed: number, needed: number, ownMissing: boolean) => string;
  readonly complete: string;
  readonly youSigned: string;
  readonly enoughCompanySignatories: string;
  readonly closed: string;
  readonly howToSign: string;
  readonly startThisDevice: string;
  readonly startOtherDevice: string;
  readonly openApp: string;
  readonly openAppHelp: string;
  readonly scanHelp: string;
  readonly qrLabel: string;
  readonly checkStatus: string;
  readonly checkStatusHelp: string;
  readonly tryAgain: string;
  readonly status: string;
  readonly otherLanguage: string;
  readonly steps: Readonly<Record<SigningStep, string>>;
  readonly notCounted: (reason: string) => string;
  readonly unavailable: string;
  readonly formRefused: string;
}

const SV: PageTexts = {
  title: 'Signera med BankID',
  intro: 'Läs igenom texten nedan. Det är den du signerar, och den visas också i BankID-appen.',
  whatYouSign: 'Det här signerar du',
  whoSigns: 'Vilka som signerar',
  roles: { policyholder: 'Försäkringstagare', insured: 'Försäkrad', 'company-signatory': 'Firmatecknare' },
  you: 'du',
  signedAt: (time) => `Har signerat ${time}`,
  notSigned: 'Har inte signerat än',
  waitingFor: (signed, needed, ownMissing) => {
    const missing = needed - signed;
    const waiting = ownMissing
      ? (missing === 1 ? 'Bara din underskrift saknas.' : `Din underskrift och ${missing - 1} till saknas.`)
      : (missing === 1 ? 'Vi väntar på en underskrift till.' : `Vi väntar på ${missing} underskrifter till.`);
    return `${signed} av ${needed} underskrifter klara. ${waiting}`;
  },
  complete: 'Alla har signerat. Du behöver inte göra något mer.',
  youSigned: 'Du har signerat. Tack! Du behöver inte göra något mer.',
  enoughCompanySignatories: 'Tillräckligt många firmatecknare har redan signerat. Du behöver inte signera.',
  closed: 'Det här går inte längre att signera.',
  howToSign: 'Signera',
  startThisDevice: 'Öppna BankID på den här enheten',
  startOtherDevice: 'BankID på en annan enhet',
  openApp: 'Öppna BankID-appen',
  openAppHelp: 'Öppnas inte appen av sig själv? Tryck på länken. Kom sedan tillbaka hit.',
  scanHelp: 'Öppna BankID-appen på din mobil eller surfplatta, tryck på QR-ikonen och skanna koden. Koden byts varje sekund.',
  qrLabel: 'QR-kod att skanna med BankID-appen',
  checkStatus: 'Kontrollera status',
  checkStatusHelp: 'Sidan uppdateras av sig själv. Du kan också trycka på knappen.',
  tryAgain: 'Försök igen',
  status: 'Status',
  otherLanguage: 'In English',
  steps: {
    openBankIdApp: 'Starta BankID-appen och skanna QR-koden, eller öppna appen på den här enheten.',
    lookingForBankId: 'BankID-appen har startat och söker efter ditt BankID.',
    scanTravelDocument: 'Skanna ditt pass eller nationella id-kort i BankID-appen.',
    confirmCall: 'Bekräfta i BankID-appen att du är i ett samtal med oss.',
    signInApp: 'Skriv in din säkerhetskod i BankID-appen och välj Skriv under.',
    inProgress: 'Signeringen pågår i BankID-appen.',
    signed: 'Signerat med BankID.',
    timedOut: 'Signeringen blev inte klar i tid. Försök igen.',
    cancelledByPerson: 'Du avbröt signeringen.',
    replacedByNewOrder: 'Signeringen avbröts eftersom en ny signering startades för dig. Försök igen.',
    appDidNotStart: 'BankID-appen startade inte, eller QR-koden skannades inte i tid. Försök igen.',
    bankIdUnusable: 'Ditt BankID kan inte användas: det är spärrat, återkallat eller för gammalt. Skaffa ett nytt hos din bank.',
    callDeclined: 'Du avböjde samtalet i BankID-appen.',
    appTooOld: 'Din BankID-app kan inte göra den här signeringen. Uppdatera appen och försök igen.',
    blockedAsRisky: 'BankID stoppade signeringen av säkerhetsskäl. Kontakta oss.',
    alreadyInProgress: 'En signering eller inloggning med BankID pågår redan för dig. Avsluta eller avbryt den i appen och försök sedan igen.',
    serviceUnavailable: 'BankID går inte att nå just nu. Försök igen om en stund.',
    technicalError: 'Ett tekniskt fel stoppade signeringen. Försök igen senare.',
    failed: 'Signeringen misslyckades. Försök igen.',
  },
  notCounted: (reason) => (reason === 'signedByAnotherPerson'
    ? 'Signeringen gjordes med någon annans BankID och räknas inte. Du måste signera med ditt eget BankID.'
    : 'Underskriften gäller inte den här texten och räknas inte. Försök igen.'),
  unavailable: 'BankID går inte att nå just nu. Försök igen om en stund.',
  formRefused: 'Formuläret kom inte från den här sidan. Öppna länken igen.',
};

const EN: PageTexts = {
  title: 'Sign with BankID',
  intro: 'Read the text below. It is what you sign, and the BankID app shows it too.',
  whatYouSign: 'What you sign',
  whoSigns: 'Who signs',
  roles: { policyholder: 'Policyholder', insured: 'Insured', 'company-signatory': 'Company signatory' },
  you: 'you',
  signedAt: (time) => `Signed ${time}`,
  notSigned: 'Not signed yet',
  waitingFor: (signed, needed, ownMissing) => {
    const missing = needed - signed;
    const waiting = ownMissing
      ? (missing === 1 ? 'Only your signature is missing.' : `Your signature and ${missing - 1} more are missing.`)
      : (missing === 1 ? 'We are waiting for one more signature.' : `We are waiting for ${missing} more signatures.`);
    return `${signed} of ${needed} signatures done. ${waiting}`;
  },
  complete: 'Everyone has signed. There is nothing more for you to do.',
  youSigned: 'You have signed. Thank you! There is nothing more for you to do.',
  enoughCompanySignatories: 'Enough company signatories have signed already. You need not sign.',
  closed: 'This can no longer be signed.',
  howToSign: 'Sign',
  startThisDevice: 'Open BankID on this device',
  startOtherDevice: 'BankID on another device',
  openApp: 'Open the BankID app',
  openAppHelp: 'Does the app not open by itself? Tap the link. Then come back here.',
  scanHelp: 'Open the BankID app on your phone or tablet, tap the QR icon and scan the code. The code changes every second.',
  qrLabel: 'QR code to scan with the BankID app',
  checkStatus: 'Check status',
  checkStatusHelp: 'The page updates by itself. You can also press the button.',
  tryAgain: 'Try again',
  status: 'Status',
  otherLanguage: 'På svenska',
  steps: {
    openBankIdApp: 'Open the BankID app and scan the QR code, or start the app on this device.',
    lookingForBankId: 'The BankID app has started and is looking for your BankID.',
    scanTravelDocument: 'Scan your passport or national identity card in the BankID app.',
    confirmCall: 'Confirm in the BankID app that you are in a call with us.',
    signInApp: 'Enter your security code in the BankID app and choose Sign.',
    inProgress: 'Signing in progress in the BankID app.',
    signed: 'Signed with BankID.',
    timedOut: 'The signing was not completed in time. Try again.',
    cancelledByPerson: 'You cancelled the signing.',
    replacedByNewOrder: 'The signing was cancelled because another one was started for you. Try again.',
    appDidNotStart: 'The BankID app did not start or the QR code was not scanned in time. Try again.',
    bankIdUnusable: 'Your BankID cannot be used: it is blocked, revoked or too old. Get a new one from your bank.',
    callDeclined: 'You declined the call in the BankID app.',
    appTooOld: 'Your BankID app cannot do this signing. Update the app and try again.',
    blockedAsRisky: 'BankID stopped the signing as a risk. Contact us.',
    alreadyInProgress: 'A BankID signing or login for you is already under way. Finish or cancel it in the app, then try again.',
    serviceUnavailable: 'BankID could not be reached just now. Try again in a while.',
    technicalError: 'A technical error stopped the signing. Try again later.',
    failed: 'The signing failed. Try again.',
  },
  notCounted: (reason) => (reason === 'signedByAnotherPerson'
    ? "The signing was done with someone else's BankID and does not count. You must sign with your own BankID."
    : 'The signature does not cover this text and does not count. Try again.'),
  unavailable: 'BankID could not be reached just now. Try again in a while.',
  formRefused: 'The form did not come from this page. Open the link again.',
};

export const TEXTS: Readonly<Record<Language, PageTexts>> = { sv: SV, en: EN };

/** `lang=en` or `lang=sv` when given; otherwise the Accept-Language the browser likes best of the two; Swedish by default. */
export function languageOf(asked: string | undefined, acceptLanguage: string | undefined): Language {
  if (asked === 'en' || asked === 'sv') return asked;
  let best: { language: Language; quality: number } | undefined;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const [tag, ...parameters] = part.trim().toLowerCase().split(';');
    const language = tag?.split('-')[0];
    if (language !== 'sv' && language !== 'en') continue;
    const q = parameters.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((value) => value !== undefined);
    const quality = q === undefined ? 1 : Number(q);
    if (!best || quality > best.quality) best = { language, quality };
  }
  return best?.language ?? 'sv';
}

/**
 * The one answer for a link that does not open the page — a wrong, expired or revoked
 * token, another case's, a complete or closed case, no case at all — in both languages,
 * the same bytes every time: it tells nothing of what exists.
 */
export const NOT_FOUND_PAGE = `<!doctype html>
<html lang="sv">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Länken gäller inte · The link is not valid</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/sign/page.css">
</head>
<body>
<main>
<h1>Länken gäller inte</h1>
<p>Länken kan ha gått ut, eller så är allt redan signerat. Be den som skickade länken om en ny.</p>
<h2 lang="en">The link is not valid</h2>
<p lang="en">It may have expired, or everything has been signed already. Ask whoever sent it for a new one.</p>
</main>
</body>
</html>
`;
