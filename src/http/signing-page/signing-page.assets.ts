/**
 * The signing page's stylesheet and script, served as files (/sign/page.css,
 * /sign/page.js) so its Content-Security-Policy allows no inline style or script.
 *
 * Colours (WCAG 2 contrast against their background, AA asks 4.5:1 for text, 3:1 for
 * focus rings and borders): text #1b1f24 on #ffffff 16.3:1; the primary button's #ffffff
 * on #1f3a5f 11.6:1; links and secondary buttons #1f3a5f on #ffffff 11.6:1; signed
 * #175e2a on #ffffff 7.9:1; the done notice #1b1f24 on #e6f4ea 14.6:1, the error notice
 * #1b1f24 on #fde8e8 14.2:1; the focus ring #b34700 on #ffffff 5.0:1. The test measures
 * them in the browser.
 *
 * The script only polls: each second it posts the Check status form (the link token
 * and language) to /sign/{id}/collect asking for JSON, puts the next QR code's outline
 * into the SVG and the step into the status line. Signed, it says so in the status line
 * and hides the code (the case may be complete, and its link spent: a reload would be
 * the 404); an order that failed it submits the form, so the outcome, with the buttons
 * to try again, is the page the server renders. It builds no markup.
 */
export const SIGNING_PAGE_CSS = `
*, *::before, *::after { box-sizing: border-box; }
[hidden] { display: none !important; }
body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1b1f24; background: #ffffff; }
header { display: flex; justify-content: flex-end; padding: .75rem 1rem; border-bottom: 1px solid #6b7280; }
main { max-width: 42rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.6rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 .5rem; }
a { color: #1f3a5f; }
.visible-text { border: 1px solid #6b7280; border-radius: 6px; padding: .25rem 1rem; background: #ffffff; }
.visible-text h4, .visible-text h5, .visible-text h6 { font-size: 1.1rem; margin: .75rem 0 .25rem; }
#signatories { padding-left: 1.2rem; }
#signatories li { margin-bottom: .25rem; }
.signed { color: #175e2a; font-weight: 600; }
.start { display: flex; flex-wrap: wrap; gap: .75rem; }
button, .button { font: inherit; font-weight: 600; padding: .7rem 1.2rem; border-radius: 6px; cursor: pointer; border: 2px solid #1f3a5f; text-decoration: none; display: inline-block; min-height: 44px; }
.primary { background: #1f3a5f; color: #ffffff; }
.secondary { background: #ffffff; color: #1f3a5f; }
button:focus-visible, a:focus-visible { outline: 3px solid #b34700; outline-offset: 2px; }
.notice { padding: .5rem 1rem; border-radius: 6px; margin: .5rem 0 1rem; color: #1b1f24; }
.notice.done { background: #e6f4ea; border: 1px solid #175e2a; }
.notice.error { background: #fde8e8; border: 1px solid #a11111; }
#qr-code { display: block; width: 240px; height: 240px; max-width: 100%; background: #ffffff; margin: .5rem 0; }
#qr-path { fill: #000000; }
.help { font-size: .95rem; }
@media (max-width: 480px) { .start { flex-direction: column; } .start button { width: 100%; } }
`;

export const SIGNING_PAGE_JS = `'use strict';
(function () {
  var form = document.getElementById('check-status');
  var order = document.getElementById('bankid-order');
  if (!form || !order) return;
  var status = document.getElementById('signing-status');
  var svg = document.getElementById('qr-code');
  var path = document.getElementById('qr-path');
  var openApp = document.getElementById('open-app');
  if (openApp && order.getAttribute('data-launch') === 'yes') {
    history.replaceState(null, '', location.pathname + location.search.replace(/&launch=1/, ''));
    location.href = openApp.href;
  }
  var busy = false;
  var timer = setInterval(poll, 1000);
  function finish() {
    clearInterval(timer);
    form.submit();
  }
  // Signed: said where the status was (the case may be complete now, and its link spent).
  function signed(answer) {
    clearInterval(timer);
    status.textContent = answer.message;
    var caseStatus = document.getElementById('case-status');
    if (caseStatus && answer.caseStatus) caseStatus.textContent = answer.caseStatus;
    ['qr-code', 'scan-help', 'check-status', 'open-app', 'status-help'].forEach(function (id) {
      var element = document.getElementById(id);
      if (element) element.setAttribute('hidden', '');
    });
    var own = document.querySelector('#signatories li[data-own=yes]');
    if (own) {
      own.setAttribute('data-signed', 'yes');
      var ownStatus = own.querySelector('span');
      if (ownStatus && answer.ownStatus) {
        ownStatus.textContent = answer.ownStatus;
        ownStatus.className = 'signed';
      }
    }
  }
  function poll() {
    if (busy) return;
    busy = true;
    fetch(form.action, {
      method: 'POST', credentials: 'same-origin', cache: 'no-store',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(new FormData(form)).toString()
    }).then(function (response) {
      if (!response.ok) { finish(); return undefined; }
      return response.json().then(function (answer) {
        if (answer.status === 'signed') { signed(answer); return; }
        if (answer.status !== 'pending') { finish(); return; }
        if (status.textContent !== answer.message) status.textContent = answer.message;
        if (svg && path && answer.qr) {
          svg.setAttribute('viewBox', answer.qr.viewBox);
          path.setAttribute('d', answer.qr.path);
        }
      });
    }).catch(function () { /* the network: the next second tries again */ }).then(function () { busy = false; });
  }
})();
`;
