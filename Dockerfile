# syntax=docker/dockerfile:1
# The openpie service image: HTTP 8080, MQTT 1883, CoAP 5683/udp, data in /data.
# Used by docker-compose.yml (node1, node2); docs/production.md, "Production stack (docker compose)".
#   docker build -t openpie .

# Node 22, a long-term support line (Node 20 reached its end of life), at an exact version (docs/production.md "Pinned images").
# Build stage: better-sqlite3 compiles its native addon when no prebuilt binary fits,
# which needs python3, make and g++.
FROM node:22.12.0-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci
COPY tsconfig.json ./
COPY src ./src
# tsconfig.json also includes test/ and bench/; without them in the image tsc builds src only.
RUN npm run build \
 && npm prune --omit=dev

# Runtime stage: the same Debian and Node as the build stage, so the native addon matches.
FROM node:22.12.0-bookworm-slim
ENV NODE_ENV=production \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
# dist/src/server.js reads its version from ../package.json, which tsc emits as dist/package.json.
COPY --from=build /app/dist/package.json ./dist/package.json
# tsc does not copy the console's static files; the console router looks for src/console/web above dist/.
COPY src/console/web ./src/console/web
# GET / links the docs, which the service renders as pages at /docs/ (src/http/pages/markdown-docs.ts looks above dist/).
COPY README.md ./README.md
COPY docs ./docs
COPY infra/docker/healthcheck.js ./healthcheck.js
# The image's own unprivileged user (uid 1000). A new named volume on /data starts with this ownership.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080 1883 5683/udp
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 CMD ["node", "healthcheck.js"]
CMD ["node", "dist/src/main.js"]
