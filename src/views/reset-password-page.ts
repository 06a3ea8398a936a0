import { page } from './html';

/**
 * The page the reset e-mail links to. The token stays in the URL and is read by the script, so it
 * is never echoed into the HTML; the form calls the JSON API like any other client.
 */
export function resetPasswordPage(): string {
  return page(
    'Reset your password',
    `<h1>Choose a new password</h1>
<form id="reset-form">
  <label for="new-password">New password</label>
  <input id="new-password" name="newPassword" type="password" autocomplete="new-password" minlength="8" required>
  <label for="confirm-password">Repeat the new password</label>
  <input id="confirm-password" type="password" autocomplete="new-password" minlength="8" required>
  <button type="submit">Set new password</button>
</form>
<p id="result" role="status"></p>
<script src="/assets/reset-password.js"></script>`,
  );
}

/** Served as a file so the page works under a strict Content-Security-Policy (no inline script). */
export const RESET_PASSWORD_SCRIPT = `
(function () {
  var form = document.getElementById('reset-form');
  var result = document.getElementById('result');
  var token = new URLSearchParams(window.location.search).get('token') || '';
  function show(text, ok) { result.textContent = text; result.className = ok ? 'ok' : 'error'; }
  if (!token) { show('This link has no reset token. Ask for a new reset e-mail.', false); form.hidden = true; return; }
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var password = document.getElementById('new-password').value;
    if (password !== document.getElementById('confirm-password').value) { show('The two passwords differ.', false); return; }
    form.querySelector('button').disabled = true;
    fetch('/api/users/reset-password', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: token, newPassword: password })
    }).then(function (response) {
      return response.json().then(function (body) {
        if (response.ok) { form.hidden = true; show('Your password has been reset. You can now log in.', true); }
        else {
          var detail = body.details && body.details[0] ? ': ' + body.details[0].message : '';
          show((body.error || 'The password could not be reset') + detail, false);
          form.querySelector('button').disabled = false;
        }
      });
    }).catch(function () { show('The service could not be reached. Try again.', false); form.querySelector('button').disabled = false; });
  });
})();
`;
