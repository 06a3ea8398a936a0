import path from 'node:path';
import { Router } from 'express';
import { buildOpenApiDocument, type OpenApiDocument } from '../http/openapi';
import type { RouteDef } from './route-table';

/** swagger-ui-dist's files, resolved without loading its index (which would load the 1.5 MB bundle into Node). */
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const SWAGGER_UI_FILES = new Set(['swagger-ui.css', 'swagger-ui.css.map', 'swagger-ui-bundle.js', 'swagger-ui-bundle.js.map', 'favicon-16x16.png', 'favicon-32x32.png']);

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Wallet Service API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/swagger-initializer.js"></script>
</body>
</html>
`;

/** A file, not an inline script, so helmet's CSP (script-src 'self') needs no exception. */
const INITIALIZER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    // No call to the online validator: the page works offline and sends the document nowhere.
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

/**
 * GET /openapi.json (generated once from the route tables, its server the service's public base
 * URL) and Swagger UI at GET /docs, served from the swagger-ui-dist package: no CDN, works offline.
 */
export function docsRouter(routeGroups: Record<string, RouteDef[]>, publicBaseUrl: string): Router {
  const router = Router();
  let document: OpenApiDocument | undefined;

  router.get('/openapi.json', (_req, res) => {
    document ??= buildOpenApiDocument(routeGroups, { serverUrl: publicBaseUrl });
    res.json(document);
  });
  router.get('/docs', (_req, res) => {
    res.type('html').send(DOCS_PAGE);
  });
  // Swagger UI's own files, only those the page loads (not the package's petstore demo page).
  router.get('/docs/:file', (req, res, next) => {
    const file = req.params.file;
    if (file === 'swagger-initializer.js') {
      res.type('application/javascript').send(INITIALIZER);
      return;
    }
    if (!SWAGGER_UI_FILES.has(file)) {
      next();
      return;
    }
    res.sendFile(file, { root: SWAGGER_UI_DIR, maxAge: '1h' }, (err) => {
      if (err) next(err);
    });
  });
  return router;
}
