# The durable-turns worker, for docker-compose.yml (or any cluster). It reads the same variables as
# connectionConfigFromEnv: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, DURABLE_TURNS_TASK_QUEUE, TEMPORAL_TLS*,
# TEMPORAL_API_KEY.

FROM node:20-slim AS build
WORKDIR /app
# Native modules (better-sqlite3) fall back to compiling when no prebuilt binary matches.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
# Dependencies first, so editing the source does not reinstall them.
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
CMD ["node", "dist/cli/worker-main.js"]
