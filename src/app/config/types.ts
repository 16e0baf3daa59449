/** The validated configuration. Durations are milliseconds. */
export interface VexilConfig {
  server: {
    host: string;
    http_port: number;
    grpc_port: number;
    protocol: 'http' | 'https';
    https_port: number;
    cert_file: string;
    cert_key: string;
    mode: 'read-write' | 'read-only';
    shutdown_drain: number;
    shutdown_timeout: number;
    max_body_bytes: number;
    max_import_bytes: number;
  };
  db: {
    url: string;
    protocol:
      '' | 'sqlite' | 'file' | 'postgres' | 'postgresql' | 'mysql' | 'cockroach' | 'cockroachdb';
    host: string;
    port: number;
    name: string;
    user: string;
    password: string;
    max_open_conn: number;
    max_idle_conn: number;
    conn_max_lifetime: number;
    connect_retry_max_backoff: number;
  };
  caching: {
    enabled: boolean;
    /** A name registered in src/adapters/cache/registry.ts. */
    backend: string;
    ttl: number;
    memory: { max_entries: number; max_bytes: number };
    redis: {
      url: string;
      host: string;
      port: number;
      password: string;
      db: number;
      prefix: string;
      tls: { enabled: boolean; ca_file: string; insecure_skip_verify: boolean };
    };
  };
  evaluation: { max_batch_size: number; snapshot_max_bytes: number };
  cors: { enabled: boolean; allowed_origins: string[]; allowed_headers: string[] };
  authentication: {
    required: boolean;
    exclude: { management: boolean; evaluation: boolean; ofrep: boolean };
    methods: {
      token: {
        enabled: boolean;
        bootstrap: { token: string; expiration: number };
        cleanup: { interval: number; grace_period: number };
      };
    };
  };
  log: { level: 'debug' | 'info' | 'warn' | 'error'; encoding: 'auto' | 'json' | 'console' };
  ui: { enabled: boolean };
  metrics: { enabled: boolean };
  tracing: {
    enabled: boolean;
    exporter: 'otlp';
    sampling_ratio: number;
    otlp: {
      endpoint: string;
      protocol: 'auto' | 'http/protobuf' | 'http/json' | 'grpc';
      headers: Record<string, string>;
    };
  };
}
