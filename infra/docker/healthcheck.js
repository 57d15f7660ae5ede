// The container health probe of the service image (Dockerfile HEALTHCHECK and docker-compose.yml).
// node:*-slim has no curl, so Node itself asks GET /healthz on the HTTP port: exit 0 on 200, 1 otherwise.
// /healthz checks only that the process answers (docs/operations.md, "Health, metrics and logs"); /readyz is for load balancers.
// With PROXY_PROTOCOL=true the HTTP port closes connections that do not start with a PROXY protocol header, so the
// probe sends one first: version 2, command LOCAL ("use the connection's own addresses", as a balancer's own health
// check does; HAProxy's "The PROXY protocol", section 2.2). PROXY_PROTOCOL_TRUSTED must then include 127.0.0.1.
'use strict';
const http = require('node:http');
const net = require('node:net');

const port = Number(process.env.PORT || 8080);
const host = '127.0.0.1';
// The 12-byte signature, then 0x20 (version 2, LOCAL), 0x00 (family UNSPEC), and no address block (length 0).
const PROXY_V2_LOCAL = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a, 0x20, 0x00, 0x00, 0x00]);

const withProxyHeader = () => {
  const socket = net.connect(port, host);
  socket.write(PROXY_V2_LOCAL);
  return socket;
};

const options = { host, port, path: '/healthz', timeout: 3000 };
if (process.env.PROXY_PROTOCOL === 'true') options.createConnection = withProxyHeader;
const request = http.get(options, (response) => {
  response.resume();
  process.exit(response.statusCode === 200 ? 0 : 1);
});
request.on('timeout', () => request.destroy(new Error('timed out')));
request.on('error', () => process.exit(1));
