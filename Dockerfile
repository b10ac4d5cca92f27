# The plant store's image: `docker build -t plant-store .` (docs/operations.md, "Containers").
# BASE is the runtime's base, BUILDER_BASE the one with a compiler for lmdb's addon; both default
# to the official Node image of the active LTS line and must carry the same Node (the addon's ABI).
ARG BASE=node:26-bookworm-slim
ARG BUILDER_BASE=node:26-bookworm

FROM ${BUILDER_BASE} AS builder
WORKDIR /app
# The manifests first: the install layer stays cached while only sources change.
COPY package.json package-lock.json ./
COPY packages/client/package.json packages/client/
COPY bench/package.json bench/
COPY scripts scripts
# Runs the postinstall, which builds lmdb's addon with LMDB's fix (make, g++, python3 are here).
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund && rm -rf src test bench

FROM ${BASE}
# tini as PID 1: it forwards SIGTERM to node (graceful shutdown) and reaps children (--workers).
# libatomic1: Node 26's binary needs it (the official image has it; a plain Debian base not).
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini libatomic1 \
  && rm -rf /var/lib/apt/lists/* \
  && useradd --system --uid 10001 --user-group --home-dir /nonexistent --no-create-home plant-store \
  && mkdir -p /var/lib/plant-store \
  && chown plant-store:plant-store /var/lib/plant-store
# The code belongs to root, read-only to the service; only the data directory is its own.
COPY --from=builder /app /app
WORKDIR /app
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=8080 \
  PLANT_STORE_DATA_DIR=/var/lib/plant-store
USER plant-store
VOLUME ["/var/lib/plant-store"]
EXPOSE 8080
# Node itself asks /healthz (no curl in the image): the process answers HTTP.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["tini", "--", "node", "/app/dist/cli.js"]
CMD ["serve"]
