# syntax=docker/dockerfile:1
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY bench ./bench
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    VEXIL_DB_URL=file:/data/vexil.db \
    VEXIL_LOG_ENCODING=json
WORKDIR /app
RUN groupadd --system vexil && useradd --system --gid vexil --home /app vexil \
    && mkdir -p /data && chown vexil:vexil /data
COPY --from=build --chown=vexil:vexil /app/node_modules ./node_modules
COPY --from=build --chown=vexil:vexil /app/dist ./dist
COPY --from=build --chown=vexil:vexil /app/package.json ./package.json
USER vexil
VOLUME ["/data"]
EXPOSE 8080 9000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "--max-semi-space-size=4", "--max-inlined-bytecode-size-cumulative=3000", "--no-memory-reducer", "dist/src/app/cli.js"]
CMD ["serve"]
