# syntax=docker/dockerfile:1
# datanode-exporter: build stage compiles TypeScript; the runtime stage holds production
# dependencies and dist/ only, runs as the unprivileged "node" user, and writes nothing to disk
# (works with a read-only root filesystem).
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the prepare script (tsc) runs below, once the sources are in.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npx tsc -p tsconfig.build.json && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
# A fixed mmap threshold keeps glibc from fragmenting its main heap (src/exporter/process/launch.ts).
ENV MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --chown=root:root package.json ./
USER node
EXPOSE 19308
HEALTHCHECK --interval=30s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:19308/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself is PID 1's program (no npm, no shell), so SIGTERM reaches the exporter.
ENTRYPOINT ["node", "--max-semi-space-size=1", "--optimize-for-size", "--expose-gc", "dist/exporter/cli.js"]
CMD ["--web.listen-address=:19308"]
