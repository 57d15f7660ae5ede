/**
 * The trial explorer: Swagger UI (swagger-ui-dist) over the API document with each operation once. Everything is
 * served by the service itself, with absolute URLs so /trial and /trial/ both work; no inline script, so it runs
 * under the pages' CSP (page-headers.ts).
 */
export const TRIAL_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>openpie trial explorer</title>
  <link rel="icon" type="image/png" sizes="32x32" href="/trial/favicon-32x32.png">
  <link rel="icon" type="image/png" sizes="16x16" href="/trial/favicon-16x16.png">
  <link rel="stylesheet" href="/trial/swagger-ui.css">
</head>
<body>
  <noscript>The explorer needs JavaScript. The API document is at <a href="/openapi.json">/openapi.json</a>.</noscript>
  <div id="swagger-ui"></div>
  <script src="/trial/swagger-ui-bundle.js"></script>
  <script src="/trial/trial.js"></script>
</body>
</html>
`;


/** The document the explorer shows: /openapi.json with each operation once (trial-document.ts). */
export const TRIAL_DOCUMENT_PATH = '/trial/openapi.json';

/**
 * Swagger UI's options (swagger-ui docs, "Configuration"): try-it-out open on every call, and no online validator
 * badge (it would call validator.swagger.io). Credentials are kept in the page's memory only (no
 * `persistAuthorization`, which would keep them in localStorage for every later visitor of this browser, issue 20
 * §6): a reload forgets them.
 */
export const TRIAL_INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '${TRIAL_DOCUMENT_PATH}',
    dom_id: '#swagger-ui',
    deepLinking: true,
    tryItOutEnabled: true,
    persistAuthorization: false,
    displayRequestDuration: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
});
`;
