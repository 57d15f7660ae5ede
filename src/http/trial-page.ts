/**
 * The trial explorer: Swagger UI (swagger-ui-dist) over /openapi.json. Everything is served by the service itself,
 * with absolute URLs so /trial and /trial/ both work; no inline script, so a strict CSP can be added later.
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

/**
 * Swagger UI's options (swagger-ui docs, "Configuration"): try-it-out open on every call, credentials kept across
 * reloads in this browser, and no online validator badge (it would call validator.swagger.io).
 */
export const TRIAL_INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    tryItOutEnabled: true,
    persistAuthorization: true,
    displayRequestDuration: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
});
`;
