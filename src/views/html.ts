const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Escapes text for HTML element content and quoted attribute values. Every interpolated value goes through it. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"'`]/g, (c) => ENTITIES[c]!);
}

/** A complete, self-contained page: no external assets, so it renders with nothing else running. */
export function page(title: string, body: string, options: { script?: string } = {}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
  body { font-family: system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; color: #1b1f24; }
  h1 { font-size: 1.4rem; }
  label { display: block; margin: 1rem 0 0.25rem; }
  input { width: 100%; padding: 0.5rem; font-size: 1rem; box-sizing: border-box; }
  button { margin-top: 1rem; padding: 0.6rem 1.2rem; font-size: 1rem; }
  .ok { color: #1a7f37; } .error { color: #cf222e; }
</style>
</head>
<body>
${body}
${options.script ? `<script>${options.script}</script>` : ''}
</body>
</html>`;
}
