# Arbiter: an agent: runs tasks as processes in its container. Needs ARBITER_MASTER (the replicas' URLs, comma-separated) and ARBITER_AGENT_TOKEN (an agent principal's token).
#   docker build -f docker/agent.Dockerfile -t arbiter/agent .
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
# Tasks are child processes of the agent; procps gives them `ps` and `kill`.
RUN apt-get update && apt-get install -y --no-install-recommends procps && rm -rf /var/lib/apt/lists/* \
  && mkdir -p /var/lib/arbiter && chown arbiter:arbiter /var/lib/arbiter
ENV ARBITER_AGENT_RESOURCES="cpus:2;mem:2048;disk:10000;ports:[31000-31999]"
VOLUME /var/lib/arbiter
# Healthy once it has registered (it keeps its agent id in its work directory).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 CMD ["test", "-s", "/var/lib/arbiter/agent.json"]
USER arbiter
ENTRYPOINT ["/bin/sh", "-c", "exec node apps/cli/bin/arbiter.js agent --hostname \"$(hostname)\" --work-dir /var/lib/arbiter --resources \"$ARBITER_AGENT_RESOURCES\" \"$@\"", "agent"]
CMD []
