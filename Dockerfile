# syntax=docker/dockerfile:1
#
# One image for every service. The default command is the all-in-one explorer (built-in devnet,
# embedded adapters, data in /app/data):
#   docker build -t mtc-explorer . && docker run --rm -p 3000:3000 mtc-explorer
# docker-compose.yml runs the same image as separate services, each with its own command:
#   node services/<devnet|follower|projector|api>/src/main.ts
#
# No build step: Node 24 runs the TypeScript sources directly (type stripping). The image's own
# Node 24 is the runtime, so `npm ci --omit=dev` leaves out the root devDependencies: the `node`
# package (the Node 24 that npm scripts use on machines with an older Node), and the compiler,
# linter and test runner. The only install script in the lockfile is that package's, hence
# --ignore-scripts.

ARG NODE_IMAGE=node:24-slim

# The workspaces' package.json files alone, so that the install layer is rebuilt when a manifest
# changes, not when a source file does.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY packages packages
COPY services services
RUN find packages services -type f ! -name package.json -delete

FROM ${NODE_IMAGE}
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
COPY --from=manifests /src ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY packages packages
COPY services services
# The sources stay root's and read-only; the services write only under DATA_DIR (the embedded
# log, read models and devnet schedule of the all-in-one and of the devnet service).
RUN mkdir -p /app/data && chown node:node /app/data
# The base image's `node` user, by number so that a runAsNonRoot policy can check it.
USER 1000:1000

ENV DATA_DIR=/app/data \
    HOST=0.0.0.0 \
    PORT=3000 \
    OPS_PORT=9100 \
    OPS_HOST=0.0.0.0 \
    NODE_OPTIONS="--disable-warning=ExperimentalWarning --disable-warning=TimeoutNegativeWarning"
# 3000: the API; 9100: the default command's /metrics (and /healthz, /readyz) for Prometheus.
EXPOSE 3000 9100
# Liveness of the default command (the API's /healthz); compose sets one per service.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "services/explorer/src/main.ts"]
