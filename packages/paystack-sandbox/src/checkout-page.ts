import { isOpen, type NotYetStatus, type SandboxTransaction, type TransactionStatus } from './transaction';

/**
 * The HTML a buyer sees. Self-contained (no scripts, no external assets) and every value from
 * the merchant or buyer goes through `escapeHtml`, because metadata and emails are
 * attacker-controlled as far as the page is concerned.
 */

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
}

/** `1234567` kobo -> `₦12,345.67`, by moving the decimal point in the digit string. */
export function formatKoboAsNaira(kobo: number): string {
  if (!Number.isSafeInteger(kobo) || kobo < 0) throw new RangeError(`Not a kobo amount: ${kobo}`);
  const digits = String(kobo).padStart(3, '0');
  const naira = digits.slice(0, -2).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `₦${naira}.${digits.slice(-2)}`;
}

const STYLE = `
  body { font-family: system-ui, sans-serif; background: #f4f6f8; margin: 0; padding: 2rem 1rem; color: #1c2b36; }
  main { max-width: 26rem; margin: 0 auto; background: #fff; border-radius: 8px; padding: 1.5rem; box-shadow: 0 1px 4px rgba(0,0,0,.12); }
  .badge { display: inline-block; font-size: .75rem; background: #fff3cd; border-radius: 4px; padding: .1rem .4rem; }
  .amount { font-size: 2rem; font-weight: 700; margin: .5rem 0; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; word-break: break-all; }
  dt { color: #5b6b78; }
  .actions { display: flex; gap: .5rem; margin-top: 1.5rem; }
  .actions form { flex: 1; margin: 0; }
  button { width: 100%; padding: .7rem; border: 0; border-radius: 6px; font-size: 1rem; cursor: pointer; }
  .pay { background: #09a5db; color: #fff; } .decline { background: #e05a4f; color: #fff; } .cancel { background: #e4e8eb; }
`;

function layout(title: string, content: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<span class="badge">Paystack sandbox &middot; test mode</span>
${content}
</main>
</body>
</html>`;
}

/** Paystack shows `metadata.custom_fields` to the buyer; the sandbox does the same. */
function customFieldRows(metadata: unknown): string {
  if (typeof metadata !== 'object' || metadata === null) return '';
  const fields = (metadata as { custom_fields?: unknown }).custom_fields;
  if (!Array.isArray(fields)) return '';
  return fields
    .map((field: unknown) => {
      if (typeof field !== 'object' || field === null) return '';
      const { display_name: label, value } = field as { display_name?: unknown; value?: unknown };
      if (label === undefined || value === undefined) return '';
      return `<dt>${escapeHtml(String(label))}</dt><dd>${escapeHtml(typeof value === 'string' ? value : JSON.stringify(value))}</dd>`;
    })
    .join('\n');
}

function actionButton(actionBase: string, action: string, label: string): string {
  return `<form method="post" action="${escapeHtml(`${actionBase}/${action}`)}"><button type="submit" class="${action}">${label}</button></form>`;
}

const SETTLED_TEXT: Record<Exclude<TransactionStatus, NotYetStatus>, string> = {
  success: 'This charge has been paid.',
  failed: 'This charge was declined.',
  reversed: 'This charge has been paid and returned to you.',
};

/**
 * @param actionBase path of this checkout (e.g. `/sandbox/paystack/checkout/abc`); the
 *   buttons post to `${actionBase}/pay|decline|cancel`.
 */
export function renderCheckoutPage(transaction: SandboxTransaction, actionBase: string): string {
  const status = transaction.status;
  const actions = isOpen(status)
    ? `<div class="actions">
${actionButton(actionBase, 'pay', 'Pay')}
${actionButton(actionBase, 'decline', 'Decline')}
${actionButton(actionBase, 'cancel', 'Cancel')}
</div>`
    : `<p>${SETTLED_TEXT[status]}</p>`;
  return layout(
    'Paystack sandbox checkout',
    `<h1>Complete your payment</h1>
<p class="amount">${escapeHtml(formatKoboAsNaira(transaction.amountKobo))}</p>
<dl>
<dt>Email</dt><dd>${escapeHtml(transaction.email)}</dd>
<dt>Reference</dt><dd>${escapeHtml(transaction.reference)}</dd>
${customFieldRows(transaction.metadata)}
</dl>
${actions}`,
  );
}

// Cancel leaves any not-yet status as it was: for the buyer each of them reads "cancelled".
const RESULT_HEADINGS: Record<TransactionStatus, string> = {
  success: 'Payment complete',
  failed: 'Payment declined',
  reversed: 'Payment returned',
  abandoned: 'Payment cancelled',
  ongoing: 'Payment cancelled',
  pending: 'Payment cancelled',
  processing: 'Payment cancelled',
  queued: 'Payment cancelled',
};

/** Shown instead of a redirect when the merchant gave no `callback_url`. */
export function renderResultPage(transaction: SandboxTransaction): string {
  const heading = RESULT_HEADINGS[transaction.status];
  return layout(
    heading,
    `<h1>${heading}</h1>
<p>Reference <strong>${escapeHtml(transaction.reference)}</strong> &middot; ${escapeHtml(formatKoboAsNaira(transaction.amountKobo))}</p>
<p>You can close this page.</p>`,
  );
}

export function renderNotFoundPage(): string {
  return layout('Checkout not found', '<h1>Checkout not found</h1><p>This payment link is invalid or has expired.</p>');
}
