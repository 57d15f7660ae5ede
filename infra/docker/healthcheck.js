// The container health probe of the service image (Dockerfile HEALTHCHECK and docker-compose.yml).
// node:*-slim has no curl, so Node itself asks GET /healthz on the HTTP port: exit 0 on 200, 1 otherwise.
// /healthz checks only that the process answers (docs/operations.md, "Health, metrics and logs"); /readyz is for load balancers.
'use strict';
const http = require('node:http');

const port = Number(process.env.PORT || 8080);
const request = http.get({ host: '127.0.0.1', port, path: '/healthz', timeout: 3000 }, (response) => {
  response.resume();
  process.exit(response.statusCode === 200 ? 0 : 1);
});
request.on('timeout', () => request.destroy(new Error('timed out')));
request.on('error', () => process.exit(1));
