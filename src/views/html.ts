const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Escapes text for HTML element content and quoted attribute values. Every interpolated value goes through it. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"'`]/g, (c) => ENTITIES[c]!);
}

/**
 * The look of the provider's checkout (packages/paystack-sandbox/src/checkout-page.ts), so a buyer
 * coming back from it sees the same kind of page: a white card on grey, the amount large. A
 * `<style>` element, not style attributes: helmet's Content-Security-Policy allows inline styles,
 * and one block keeps every page's look in one place.
 */
const STYLE = `
  body { font-family: system-ui, sans-serif; background: #f4f6f8; margin: 0; padding: 2rem 1rem; color: #1c2b36; }
  main { max-width: 26rem; margin: 0 auto; background: #fff; border-radius: 8px; padding: 1.5rem; box-shadow: 0 1px 4px rgba(0,0,0,.12); }
  .amount { font-size: 2rem; font-weight: 700; margin: .5rem 0; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; word-break: break-all; }
  dt { color: #5b6b78; } dd { margin: 0; }
  .note { color: #5b6b78; font-size: .9rem; }
  label { display: block; margin: 1rem 0 .25rem; }
  input { width: 100%; padding: .5rem; font-size: 1rem; box-sizing: border-box; }
  button { width: 100%; margin-top: 1.5rem; padding: .7rem; border: 0; border-radius: 6px; font-size: 1rem; cursor: pointer; background: #09a5db; color: #fff; }
  .ok { color: #1a7f37; } .error { color: #cf222e; }
`;

/** A complete, self-contained page: no external assets, so it renders with nothing else running. */
export function page(title: string, body: string, options: { script?: string } = {}): string {
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
${body}
</main>
${options.script ? `<script>${options.script}</script>` : ''}
</body>
</html>`;
}
