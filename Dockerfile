# syntax=docker/dockerfile:1
# depot-gateway production image.
#
# The build stage installs every dependency, compiles the TypeScript sources to dist/
# (`npm install` runs `npm run build`), builds the libxmljs2 native addon where no
# prebuilt one fits (python3, make, g++), then drops the development dependencies.
# The final image runs the compiled JavaScript only; the compilers stay behind. Both
# stages use the same base image, so the addon matches the Node ABI and glibc it runs on.
#
#   docker build -t depot-gateway .
#   docker compose up            (PostgreSQL, Redis and the gateway; see docker-compose.yml)
#
# The image runs no demo: it reads /config/depot-gateway.yaml (mount your file there, or
# set DEPOT_GATEWAY_CONFIG) and without it stops with CONFIG_INVALID saying so. It listens
# on 0.0.0.0, so the configuration must hold password hashes (depot-gateway hash-secret),
# no demo and no placeholder passwords: the gateway refuses to start otherwise.
# Whatever it writes under DATA_DIR is 0640 (folders 0750): the program sets umask 027
# itself at start, so the image needs no shell wrapper for it.

ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm install --no-audit --no-fund \
 && npm prune --omit=dev --no-audit --no-fund \
 && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data \
    DEPOT_GATEWAY_CONFIG=/config/depot-gateway.yaml
WORKDIR /app
# Read-only for the node user: the gateway writes only to DATA_DIR.
COPY --from=deps /app/node_modules ./node_modules
COPY --from=deps /app/dist ./dist
COPY package.json package-lock.json ./
COPY bin ./bin
COPY schemas ./schemas
COPY fixtures ./fixtures
COPY config ./config
# A new named volume mounted on /data takes this owner.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# Slim images have no curl: use Node's fetch. /healthz answers once the HTTP server
# listens. Roles without HTTP (`worker`, `watch`) must disable this check.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The gateway handles SIGTERM itself: it stops taking work and lets active jobs finish.
CMD ["node", "bin/depot-gateway.js", "start"]
