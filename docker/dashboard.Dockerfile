# Arbiter: the web dashboard. Needs ARBITER_API_URL: the control-plane replicas' URLs, comma-separated.
#   docker build -f docker/dashboard.Dockerfile -t arbiter/dashboard .
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
# The dashboard's production build, so that it starts at once.
RUN cd apps/dashboard && npx next build

FROM node:20-bookworm-slim
WORKDIR /arbiter
ENV NODE_ENV=production
RUN groupadd --system arbiter && useradd --system --gid arbiter --home-dir /arbiter arbiter
COPY --from=build --chown=root:root /arbiter /arbiter
ENTRYPOINT ["node", "apps/cli/bin/arbiter.js"]
EXPOSE 3000
ENV DASHBOARD_PORT=3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=5 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.DASHBOARD_PORT}/login`).then((r) => process.exit(r.status < 500 ? 0 : 1), () => process.exit(1))"]
USER arbiter
CMD ["dashboard", "--hostname", "0.0.0.0"]
