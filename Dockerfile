# syntax=docker/dockerfile:1
# Build stage: compile TypeScript with the dev dependencies.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The sandbox workspaces are here only for their types: src/container.ts names them and loads them
# with import() when STELLAR_RPC_URL and HORIZON_URL / PAYSTACK_SECRET_KEY are unset, so the compiler must resolve them
# (npm ci links them into node_modules/@wallet/). tsconfig.build.json compiles src/ only: nothing
# of packages/ reaches dist/.
COPY packages ./packages
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Runtime stage: production dependencies only, non-root, migrations shipped beside the code.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/app/data
WORKDIR /app
COPY package.json package-lock.json ./
# No sandboxes in this image: packages/ is not copied, and --workspaces=false keeps npm from
# installing or linking the workspaces even if it were (without it, npm ci links every workspace
# whose folder exists and installs its dependencies, --omit=dev or not). Production config refuses
# to start without STELLAR_RPC_URL or HORIZON_URL, and PAYSTACK_SECRET_KEY; without NODE_ENV=production, an unset one
# stops the start with a message naming it (the sandbox cannot be loaded here).
RUN npm ci --omit=dev --workspaces=false --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# dist/db/client.js applies the migrations from ../../drizzle, i.e. /app/drizzle.
COPY drizzle ./drizzle
# The code stays root-owned (read-only to the service); only DATA_DIR is writable. In production
# nothing is written there (every outside system is configured, DATABASE_URL included); without
# NODE_ENV=production it holds the embedded PostgreSQL server's files (the server runs as the node
# user), outbox and generated secrets: mount a volume.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# node as PID 1 receives SIGTERM directly: server.ts stops accepting, finishes requests, closes the database.
CMD ["node", "dist/server.js"]
