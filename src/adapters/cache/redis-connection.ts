import { readFileSync } from 'node:fs';
import type Redis from 'ioredis';
import type { RedisOptions } from 'ioredis';
import type { Logger } from '../../ports';

/** The `caching.redis` section, as the adapter needs it. */
export interface RedisConnectionOptions {
  /** redis:// or rediss:// URL; when non-empty it wins over host/port/password/db. */
  readonly url?: string;
  readonly host: string;
  readonly port: number;
  readonly password?: string;
  readonly db: number;
  readonly tls?: {
    readonly enabled: boolean;
    /** Path of a PEM file with the CA to trust ("" or undefined: the system's). */
    readonly caFile?: string;
    readonly insecureSkipVerify?: boolean;
  };
  /**
   * Longest wait for one command. Kept short: a slow cache must cost less than the database
   * read it saves, and a failed lookup falls back to the database anyway.
   */
  readonly commandTimeoutMs?: number;
  readonly connectTimeoutMs?: number;
}

const DEFAULT_COMMAND_TIMEOUT_MS = 500;
const DEFAULT_CONNECT_TIMEOUT_MS = 2000;
const MAX_RECONNECT_DELAY_MS = 1000;

/**
 * ioredis options that fail fast instead of queueing: with the server gone, a command
 * rejects at once (no offline queue, no per-request retries) while the client keeps
 * reconnecting in the background.
 */
export function redisOptions(options: RedisConnectionOptions): RedisOptions {
  const useTls = options.tls?.enabled === true || /^rediss:/i.test(options.url ?? '');
  const caFile = options.tls?.caFile;
  return {
    host: options.host,
    port: options.port,
    password: options.password === '' ? undefined : options.password,
    db: options.db,
    tls: useTls
      ? {
          ca: caFile ? readFileSync(caFile) : undefined,
          rejectUnauthorized: options.tls?.insecureSkipVerify !== true,
        }
      : undefined,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    connectTimeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    retryStrategy: (times: number) =>
      Math.min(50 * 2 ** Math.min(times, 6), MAX_RECONNECT_DELAY_MS),
  };
}

/** A command connection to Redis, per `options`. */
export function connectRedis(options: RedisConnectionOptions, logger?: Logger): Redis {
  // Loaded here, not at the top: a process without caching.backend redis never pays for it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Redis } = require('ioredis') as typeof import('ioredis');
  const client =
    options.url !== undefined && options.url !== ''
      ? new Redis(options.url, redisOptions(options))
      : new Redis(redisOptions(options));
  watchConnection(client, 'commands', logger);
  return client;
}

/**
 * Logs connection changes once per transition (not once per reconnect attempt) and keeps
 * ioredis from reporting unhandled 'error' events.
 */
export function watchConnection(client: Redis, role: string, logger?: Logger): void {
  let down = false;
  client.on('error', (err: Error) => {
    if (down) return;
    down = true;
    logger?.warn('redis unreachable; evaluations use the database and the snapshots held', {
      role,
      error: err.message,
    });
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    logger?.info('redis reachable again', { role });
  });
}
