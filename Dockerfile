# datanode-exporter: build stage compiles TypeScript; the runtime stage holds production
# dependencies and dist/ only, runs as the unprivileged "node" user, and writes nothing to disk
# (works with a read-only root filesystem).
# Build with BuildKit (RUN --mount): `DOCKER_BUILDKIT=1 docker build` on Debian's docker.io 20.10,
# whose legacy builder refuses --mount; Docker 23 and later use BuildKit by default.
# No "# syntax=" line: BuildKit's built-in Dockerfile frontend (Docker 20.10 and later) has
# RUN --mount, and fetching a frontend image needs a registry that CI does not reach.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the dependencies need no install scripts; the build runs below, once the
# sources are in.
# An optional CA bundle for TLS-intercepting networks comes in as a build secret
# (--secret id=ca,src=/etc/ssl/certs/ca-certificates.crt): used for npm ci, never stored in a layer.
RUN --mount=type=secret,id=ca \
    if [ -s /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi; \
    npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/build-info.mjs ./scripts/
# The commit built (no .git in the context): `--build-arg REVISION=$(git rev-parse HEAD)`.
# Declared here, after npm ci, so that a new revision does not redo the install.
ARG REVISION=unknown
RUN BUILD_REVISION="$REVISION" npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE}
ARG REVISION=unknown
# The repository the image is published from: `--build-arg SOURCE=<URL>` (empty when not given).
ARG SOURCE=
# The version is package.json's (test/kit/kit.test.ts keeps them equal).
LABEL org.opencontainers.image.title="datanode-exporter" \
      org.opencontainers.image.description="Prometheus exporter for Vega network data nodes" \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="MIT"
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --chown=root:root package.json LICENSE ./
# Served as /runbook, where every alert's runbook_url points (the runbook of this version).
COPY --chown=root:root docs/runbook.md ./docs/
USER node
EXPOSE 19308 19309
# Every interface by default in a container, but below the config file: a mounted config's
# web.listen_address wins, and flags and DATANODE_EXPORTER_WEB_LISTEN_ADDRESS win over both.
ENV DATANODE_EXPORTER_WEB_LISTEN_ADDRESS_DEFAULT=:19308
# The health listener (/healthz, /readyz; plain HTTP), below the config file likewise: no client
# of the main port can starve it.
ENV DATANODE_EXPORTER_WEB_HEALTH_LISTEN_ADDRESS_DEFAULT=:19309
# --pid=1: the health check reads the exporter's own arguments and environment (/proc/1), so it
# probes the address and scheme the daemon serves however they were given.
HEALTHCHECK --interval=30s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "dist/exporter/cli.js", "healthcheck", "--pid=1"]
# The bin itself: its shebang carries the launch settings (docs/performance.md), and env execs
# node, so node is PID 1's program (no npm, no shell) and SIGTERM reaches the exporter.
ENTRYPOINT ["/app/dist/exporter/cli.js"]
