# syntax=docker/dockerfile:1
# The production image: the standalone Next.js server (no sources, no dev dependencies), run as a
# non-root user. Migrations are NOT run at start (many replicas would race); run them once per
# release with the image's migration command:
#   docker compose run --rm migrate          (or: docker run --rm -e DATABASE_URL=... IMAGE node scripts/db-migrate.mjs)
# Build:  docker build -t subscription-ai-backend .      Run: see compose.yaml and docs/DEPLOY.md

# Node.js 24 (the current LTS; 22 also works: --build-arg NODE_IMAGE=node:22-bookworm-slim).
ARG NODE_IMAGE=node:24-bookworm-slim

# ---- dependencies: exactly the lock (dependency install scripts are not needed; the Prisma client
# is generated offline by our own script) ----
FROM ${NODE_IMAGE} AS deps
WORKDIR /src
ENV NEXT_TELEMETRY_DISABLED=1
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts/prisma-generate.mjs ./scripts/
RUN npm ci --ignore-scripts --no-audit --no-fund && node scripts/prisma-generate.mjs

# ---- build: next build (type-checked) + the standalone server, its assets and migration command ----
FROM deps AS build
COPY . .
RUN npm run build

# ---- runtime ----
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    HOSTNAME=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
RUN groupadd --system --gid 10001 app \
 && useradd --system --uid 10001 --gid app --home-dir /app --shell /usr/sbin/nologin app \
 && mkdir -p /data && chown app:app /data
COPY --from=build --chown=app:app /src/.next/standalone ./
USER app
EXPOSE 3000
VOLUME ["/data"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "server.js"]
