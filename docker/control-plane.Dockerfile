# Arbiter: the control plane (REST API, the master when it leads). Needs DATABASE_URL and ARBITER_ADMIN_TOKEN.
#   docker build -f docker/control-plane.Dockerfile -t arbiter/control-plane .
# Multi-stage: dependencies, then the workspace, then a runtime image that runs as the
# unprivileged user 'arbiter'. TypeScript runs from source through SWC, as in development.
FROM node:20-bookworm-slim AS deps
WORKDIR /arbiter
COPY package.json package-lock.json ./
COPY apps/agent/package.json apps/agent/
COPY apps/cli/package.json apps/cli/
COPY apps/control-plane/package.json apps/control-plane/
COPY apps/dashboard/package.json apps/dashboard/
COPY libs/allocator/package.json libs/allocator/
COPY libs/contracts/package.json libs/contracts/
COPY libs/scheduler-sdk/package.json libs/scheduler-sdk/
COPY examples/package.json examples/
# `npm ci` needs every platform's optional binaries in the lock; `npm install` follows the lock
# without them.
RUN npm ci --no-audit --no-fund || npm install --no-audit --no-fund

FROM deps AS build
COPY . .

FROM node:20-bookworm-slim
WORKDIR /arbiter
ENV NODE_ENV=production
RUN groupadd --system arbiter && useradd --system --gid arbiter --home-dir /arbiter arbiter
COPY --from=build --chown=root:root /arbiter /arbiter
ENTRYPOINT ["node", "apps/cli/bin/arbiter.js"]
EXPOSE 8080
ENV PORT=8080
HEALTHCHECK --interval=5s --timeout=3s --start-period=30s --retries=5 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
USER arbiter
CMD ["control-plane"]
