/*
 * Every key of Flipt v1.61's configuration, and what Vexil does with it. A Flipt key is either
 * one of Vexil's own keys (same name, nothing to do), renamed onto a Vexil key, or not
 * supported: then it is ignored with one warning at start, unless its value asks for what
 * Vexil does anyway (`meta.telemetry_enabled: false`, `storage.type: database`), which is
 * accepted quietly. A `*` entry covers a whole section Vexil does not have.
 */

export type FliptKey =
  | {
      readonly kind: 'renamed';
      /** The Vexil key it sets. */
      readonly to: string;
      /** From Flipt's meaning of the value to Vexil's. */
      readonly convert?: (value: unknown) => unknown;
    }
  | {
      readonly kind: 'unsupported';
      /** Values with which Vexil already behaves as Flipt would: no warning. */
      readonly harmless?: (value: unknown) => boolean;
      /** Why, or what to use instead, for the warning. */
      readonly note?: string;
    };

const isFalse = (v: unknown): boolean => v === false || v === 'false';
const isZero = (v: unknown): boolean => v === 0 || v === '0' || v === '0s' || v === '';
const isOneOf =
  (...values: readonly string[]) =>
  (v: unknown): boolean =>
    typeof v === 'string' && values.includes(v.toLowerCase());
const unsupported = (note?: string, harmless?: (value: unknown) => boolean): FliptKey => ({
  kind: 'unsupported',
  ...(note === undefined ? {} : { note }),
  ...(harmless === undefined ? {} : { harmless }),
});
const renamed = (to: string, convert?: (value: unknown) => unknown): FliptKey => ({
  kind: 'renamed',
  to,
  ...(convert === undefined ? {} : { convert }),
});
const always = (): boolean => true;

/** Exact Flipt key paths (Vexil's own keys of the same name are not listed). */
export const FLIPT_KEYS: ReadonlyMap<string, FliptKey> = new Map<string, FliptKey>([
  // A Flipt file may say which version of the configuration format it is written in.
  ['version', unsupported(undefined, always)],

  ['log.file', unsupported('logs go to standard output')],
  ['log.grpc_level', unsupported()],
  ['log.keys.time', unsupported()],
  ['log.keys.level', unsupported()],
  ['log.keys.message', unsupported()],

  ['cache.enabled', renamed('caching.enabled')],
  ['cache.backend', renamed('caching.backend')],
  ['cache.ttl', renamed('caching.ttl')],
  // Deprecated spellings Flipt still reads.
  ['cache.memory.enabled', renamed('caching.enabled')],
  ['cache.memory.expiration', renamed('caching.ttl')],
  [
    'cache.memory.eviction_interval',
    unsupported('expired snapshots are dropped when next read, not on a timer'),
  ],
  ['cache.redis.host', renamed('caching.redis.host')],
  ['cache.redis.port', renamed('caching.redis.port')],
  ['cache.redis.password', renamed('caching.redis.password')],
  ['cache.redis.db', renamed('caching.redis.db')],
  ['cache.redis.prefix', renamed('caching.redis.prefix')],
  ['cache.redis.require_tls', renamed('caching.redis.tls.enabled')],
  ['cache.redis.ca_cert_path', renamed('caching.redis.tls.ca_file')],
  ['cache.redis.insecure_skip_tls', renamed('caching.redis.tls.insecure_skip_verify')],
  ['cache.redis.username', unsupported(undefined, isZero)],
  ['cache.redis.mode', unsupported('Redis Cluster is not supported', isOneOf('single'))],
  ['cache.redis.ca_cert_bytes', unsupported('use caching.redis.tls.ca_file', isZero)],
  ['cache.redis.pool_size', unsupported('Vexil keeps one connection per role', isZero)],
  ['cache.redis.min_idle_conn', unsupported(undefined, isZero)],
  ['cache.redis.conn_max_idle_time', unsupported(undefined, isZero)],
  ['cache.redis.net_timeout', unsupported(undefined, isZero)],

  ['server.grpc_conn_max_idle_time', unsupported(undefined, isZero)],
  ['server.grpc_conn_max_age', unsupported(undefined, isZero)],
  ['server.grpc_conn_max_age_grace', unsupported(undefined, isZero)],

  // Vexil does not keep named prepared statements, so either setting behaves as Flipt's.
  ['db.prepared_statements_enabled', unsupported(undefined, always)],

  ['storage.type', unsupported('Vexil stores configuration in a database', isOneOf('database'))],
  [
    'storage.read_only',
    renamed('server.mode', (v) => (v === true || v === 'true' ? 'read-only' : 'read-write')),
  ],

  ['meta.check_for_updates', unsupported('Vexil never checks for updates', isFalse)],
  ['meta.telemetry_enabled', unsupported('Vexil sends no telemetry', isFalse)],
  ['meta.state_directory', unsupported(undefined, isZero)],

  ['metrics.exporter', unsupported('metrics are served at /metrics', isOneOf('prometheus'))],

  [
    'tracing.propagators',
    unsupported(
      'only W3C trace context is read',
      (v) => Array.isArray(v) && v.every((p) => ['tracecontext', 'baggage'].includes(String(p))),
    ),
  ],

  // Deprecated in Flipt, where it has no effect either.
  ['authentication.exclude.metadata', unsupported(undefined, always)],
  ['authentication.methods.token.bootstrap.metadata', unsupported()],
]);

/**
 * Sections Vexil does not have: every key below one is Flipt's, and unsupported. A key named
 * `enabled` or `required` set to false is accepted quietly (the feature is off in both).
 */
export const FLIPT_SECTIONS: readonly string[] = [
  'ui',
  'storage.local',
  'storage.git',
  'storage.object',
  'storage.oci',
  'metrics.otlp',
  'tracing.jaeger',
  'tracing.zipkin',
  'diagnostics',
  'authentication.session',
  'authentication.methods.oidc',
  'authentication.methods.github',
  'authentication.methods.kubernetes',
  'authentication.methods.jwt',
  'authentication.methods.cloud',
  'authorization',
  'audit',
  'analytics',
  'experimental',
  'cloud',
];

/** What Vexil does with a Flipt key path that is not one of its own; undefined: not Flipt's. */
export function fliptKey(path: string): FliptKey | undefined {
  const exact = FLIPT_KEYS.get(path);
  if (exact !== undefined) return exact;
  const section = FLIPT_SECTIONS.find((s) => path === s || path.startsWith(`${s}.`));
  if (section === undefined) return undefined;
  return unsupported(
    undefined,
    (v) => (path.endsWith('.enabled') || path.endsWith('.required')) && isFalse(v),
  );
}

/** The FLIPT_* environment name of a key path. */
export const fliptEnvNameOf = (path: string): string =>
  `FLIPT_${path.toUpperCase().replace(/\./g, '_')}`;
