# syntax=docker/dockerfile:1
# KairosDB 1.2.1-1 from Maven Central, on Java 17, storing its points in Cassandra.
# The same jars, properties and JVM flags as infra/kairosdb.sh (infra/README.md says why each is there).
# Build context: the repository root (docker-compose.yml, service kairosdb):
#   docker build -f infra/docker/kairosdb.Dockerfile -t openpie-kairosdb .
# Its tables must exist before it starts: compose's one-shot kairosdb-schema applies infra/kairosdb/schema.cql.

# Fetch stage: infra/kairosdb/pom.xml lists KairosDB and the JAXB/activation/annotation jars that
# Java 17 no longer ships; Maven copies them and their runtime dependencies into /build/lib.
# Exact tags: a rebuild gets the same Maven and JRE (docs/production.md "Pinned images").
FROM maven:3.9.9-eclipse-temurin-17 AS fetch
ARG KAIROSDB_GROUP=org.kairosdb
ARG KAIROSDB_VERSION=1.2.1-1
WORKDIR /build
COPY infra/kairosdb/pom.xml ./pom.xml
RUN mvn -B -q -Dkairosdb.group="${KAIROSDB_GROUP}" -Dkairosdb.version="${KAIROSDB_VERSION}" \
      dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory=/build/lib

FROM eclipse-temurin:17.0.13_11-jre
# envsubst (gettext-base) renders kairosdb.properties at start; curl answers the health check.
RUN apt-get update \
 && apt-get install -y --no-install-recommends gettext-base curl \
 && rm -rf /var/lib/apt/lists/*
# A fixed uid: secrets-init gives this user the Cassandra password it reads (infra/docker/secrets-init.sh).
RUN groupadd --system --gid 1001 kairosdb \
 && useradd --system --uid 1001 --gid kairosdb --home-dir /var/lib/kairosdb kairosdb \
 && mkdir -p /opt/kairosdb/conf /var/lib/kairosdb \
 && chown kairosdb:kairosdb /opt/kairosdb/conf /var/lib/kairosdb
COPY --from=fetch /build/lib /opt/kairosdb/lib
COPY infra/kairosdb/kairosdb.properties /opt/kairosdb/kairosdb.properties.template
COPY infra/kairosdb/logback.xml /opt/kairosdb/logback.xml
COPY infra/docker/kairosdb-entrypoint.sh /opt/kairosdb/entrypoint.sh
COPY infra/docker/kairosdb-health.sh /opt/kairosdb/health.sh
# Defaults for the placeholders of kairosdb.properties; compose may override any of them.
ENV KAIROSDB_HOST=0.0.0.0 \
    KAIROSDB_PORT=8080 \
    KAIROSDB_TELNET_PORT=4242 \
    KAIROSDB_DATA_DIR=/var/lib/kairosdb \
    KAIROSDB_KEYSPACE=kairosdb \
    KAIROSDB_DATASTORE_MODULE=org.kairosdb.datastore.cassandra.CassandraModule \
    KAIROSDB_HEAP=512m \
    CASSANDRA_HOST=cassandra \
    CASSANDRA_NATIVE_PORT=9042 \
    KAIROSDB_QUEUE_ON_START=keep
USER kairosdb
# The on-disk write queue lives here: points answered with 204 wait in it until they reach Cassandra.
VOLUME ["/var/lib/kairosdb"]
EXPOSE 8080
# Fails when KairosDB's own points stop reaching Cassandra (a write queue that no longer drains), not only when HTTP
# stops answering; the first self-report comes a minute after the start.
HEALTHCHECK --interval=30s --timeout=10s --start-period=150s --retries=3 CMD ["/bin/sh", "/opt/kairosdb/health.sh"]
ENTRYPOINT ["/bin/sh", "/opt/kairosdb/entrypoint.sh"]
