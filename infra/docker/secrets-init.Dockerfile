# syntax=docker/dockerfile:1
# The one-shot that makes the stack's secrets and a first TLS certificate (docker-compose.yml, service secrets-init;
# docs/production.md "Secrets"). Alpine has no openssl command of its own: apk adds it at build time, so the
# container needs no network when it runs.
#   docker build -f infra/docker/secrets-init.Dockerfile -t openpie-secrets-init .
FROM alpine:3.20.3
RUN apk add --no-cache openssl
COPY infra/docker/secrets-init.sh /usr/local/bin/secrets-init.sh
ENTRYPOINT ["/bin/sh", "/usr/local/bin/secrets-init.sh"]
