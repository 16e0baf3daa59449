# syntax=docker/dockerfile:1
# The image holds the single executable (npm run package) and nothing else of Node.
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY bench ./bench
COPY ui ./ui
RUN npm run package && mkdir -p /out/data && cp build/vexil /out/vexil

# glibc and libstdc++, which the executable and its SQLite addon link to; runs as nonroot.
FROM gcr.io/distroless/cc-debian12:nonroot
ENV VEXIL_DB_URL=file:/data/vexil.db \
    VEXIL_LOG_ENCODING=json \
    NODE_OPTIONS="--max-semi-space-size=4 --v8-pool-size=1"
COPY --from=build --chown=nonroot:nonroot /out/data /data
COPY --from=build /out/vexil /usr/local/bin/vexil
WORKDIR /home/nonroot
VOLUME ["/data"]
EXPOSE 8080 9000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["vexil", "health"]
ENTRYPOINT ["vexil"]
CMD ["serve"]
