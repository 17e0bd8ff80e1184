# syntax=docker/dockerfile:1.7
# indexer: follows the chain, stores decoded events and maintains the read models (one active replica per chain). The same image runs the migrations: node prisma/dist/migrate-cli.js
#
# Build from the repository root:
#   docker build -f deploy/docker/indexer.Dockerfile -t tmi/indexer .
# Run: docker run --rm -p 3004:3004 -e ... tmi/indexer   (settings: docs/operations.md)
ARG NODE_IMAGE=node:20-bookworm-slim
ARG PNPM_VERSION=12.21.0

# ---- build: whole-workspace install (the build needs dev tools: solc, prisma, typescript), contracts + Prisma client + TypeScript build of this service
FROM ${NODE_IMAGE} AS build
ARG PNPM_VERSION
ENV CI=true PNPM_HOME=/pnpm PATH=/pnpm:$PATH
RUN npm install -g pnpm@${PNPM_VERSION}
WORKDIR /src
# Manifests first so the dependency layer is cached until they change.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc tsconfig.base.json tsconfig.json ./
COPY packages/shared/package.json packages/shared/
COPY packages/contracts/package.json packages/contracts/
COPY packages/devnet/package.json packages/devnet/
COPY packages/testkit/package.json packages/testkit/
COPY packages/client/package.json packages/client/
COPY prisma/package.json prisma/
COPY services/indexer/package.json services/indexer/
COPY services/query-api/package.json services/query-api/
COPY services/metadata-api/package.json services/metadata-api/
COPY services/oracle-price/package.json services/oracle-price/
COPY services/gateway/package.json services/gateway/
COPY test/package.json test/
COPY bench/package.json bench/
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store pnpm config set store-dir /pnpm/store \
 && pnpm install --frozen-lockfile
COPY packages packages
COPY prisma prisma
COPY services services
RUN node packages/contracts/scripts/build.mjs --quiet \
 && pnpm --filter @tmi/db generate \
 && node_modules/.bin/tsc -b services/indexer
# Production dependencies only, for this service and the workspace packages it imports.
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store rm -rf node_modules packages/*/node_modules prisma/node_modules services/*/node_modules \
 && pnpm install --frozen-lockfile --prod --prefer-offline --filter "@tmi/indexer..."
# The runtime tree: the workspace layout (pnpm's symlinks point into it), without sources. Workspace
# packages selected by the filter but not built for this service (devDependencies) keep only their
# manifest.
RUN mkdir -p /out && cp -a package.json node_modules /out/ \
 && for dir in packages/* prisma services/indexer; do \
      if [ -d "$dir/node_modules" ] || [ "$dir" = "services/indexer" ]; then \
        mkdir -p "/out/$dir" && cp -a "$dir/package.json" "/out/$dir/" \
        && { [ ! -d "$dir/dist" ] || cp -a "$dir/dist" "/out/$dir/"; } \
        && { [ ! -d "$dir/node_modules" ] || cp -a "$dir/node_modules" "/out/$dir/"; }; \
      fi; \
    done \
 && cp -a prisma/migrations /out/prisma/

# ---- runtime: Node 20 LTS slim, non-root
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3004
WORKDIR /app
COPY --from=build /out /app
USER node
EXPOSE 3004
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=6 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:3004/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--max-old-space-size=2048", "--max-semi-space-size=64", "services/indexer/dist/main.js"]
