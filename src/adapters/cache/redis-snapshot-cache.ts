import type Redis from 'ioredis';
import type { NamespaceData } from '../../domain/model';
import {
  NamespaceLinesReader,
  namespaceLines,
} from '../../domain/services/evaluation/snapshot-codec';
import type { SnapshotCache } from '../../ports';
import { snapshotKey, versionKey } from './cache-keys';

export interface RedisSnapshotCacheOptions {
  /** caching.redis.prefix, e.g. "vexil:". */
  readonly prefix: string;
  /** Expiry of every stored snapshot and version key; each store renews the version key's. */
  readonly expiryMs: number;
}

/** Default expiry: snapshots are immutable per version; this only bounds what piles up. */
export const DEFAULT_SNAPSHOT_EXPIRY_MS = 60 * 60 * 1000;

// Stores the snapshot and raises the version key without ever lowering it, atomically.
/** The lines written under a temporary key take the snapshot's name once all are there. */
const SET_SNAPSHOT = `
redis.call('RENAME', KEYS[3], KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
local current = tonumber(redis.call('GET', KEYS[2]))
if current == nil or current < tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[1])
else
  redis.call('PEXPIRE', KEYS[2], ARGV[1])
end
return 1
`;

/**
 * Characters of lines sent per command at most (unless one line is longer). ioredis makes a
 * command of string arguments into one string, which the socket write flattens: kept under
 * V8's 128 KB large-object threshold, that copy is made and freed in the young generation.
 */
const SET_COMMAND_CHARS = 64 * 1024;

/** Lines fetched per command: about 256 KB (snapshot-codec.ts, LINE_CHARS). */
const GET_LINES_PER_COMMAND = 16;

/**
 * A turn of the event loop after each command's lines are read: parsing 16 lines (about 256 KB
 * of JSON) takes a few milliseconds.
 */
const giveWay = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const globEscape = (text: string): string => text.replace(/[*?[\]\\]/g, '\\$&');

/**
 * Serialized snapshots shared by every instance: `<prefix>snapshot:<ns>:<version>` (a list of
 * lines of JSON, snapshot-codec.ts) and
 * `<prefix>version:<ns>` (the highest version stored). Commands reject quickly when Redis is
 * unreachable; the caller then reads the database.
 */
export class RedisSnapshotCache implements SnapshotCache {
  readonly backend = 'redis' as const;

  constructor(
    private readonly client: Redis,
    private readonly options: RedisSnapshotCacheOptions,
  ) {}

  async get(namespaceKey: string, version: number): Promise<NamespaceData | undefined> {
    const key = snapshotKey(this.options.prefix, namespaceKey, version);
    const reader = new NamespaceLinesReader(namespaceKey, version);
    for (let start = 0; ; start += GET_LINES_PER_COMMAND) {
      const lines = await this.client.lrange(key, start, start + GET_LINES_PER_COMMAND - 1);
      for (const line of lines) if (!reader.push(line)) return undefined;
      if (lines.length < GET_LINES_PER_COMMAND) break;
      await giveWay();
    }
    return reader.result();
  }

  async set(namespaceKey: string, version: number, data: NamespaceData): Promise<void> {
    const key = snapshotKey(this.options.prefix, namespaceKey, version);
    const expiry = String(Math.max(1, Math.round(this.options.expiryMs)));
    // Written under a name of its own, so that a reader never sees half a snapshot.
    const writing = `${key}:writing:${Math.random().toString(36).slice(2)}`;
    let batch: string[] = [];
    let chars = 0;
    // Each batch renews the temporary key's expiry, in the same round trip.
    const send = async (): Promise<void> => {
      const lines = batch;
      batch = [];
      chars = 0;
      await Promise.all([
        this.client.rpush(writing, ...lines),
        this.client.pexpire(writing, expiry),
      ]);
    };
    try {
      // Made as they are sent: no more than one command's lines are held at a time. Waiting
      // for each command's answer gives the event loop its turns.
      for (const line of namespaceLines(data)) {
        if (batch.length > 0 && chars + line.length > SET_COMMAND_CHARS) await send();
        batch.push(line);
        chars += line.length;
      }
      if (batch.length > 0) await send();
      await this.client.eval(
        SET_SNAPSHOT,
        3,
        key,
        versionKey(this.options.prefix, namespaceKey),
        writing,
        expiry,
        String(version),
      );
    } catch (err) {
      await this.client.del(writing).catch(() => undefined);
      throw err;
    }
  }

  async latestVersion(namespaceKey: string): Promise<number | undefined> {
    const text = await this.client.get(versionKey(this.options.prefix, namespaceKey));
    if (text === null) return undefined;
    const version = Number(text);
    return Number.isSafeInteger(version) ? version : undefined;
  }

  async delete(namespaceKey: string): Promise<void> {
    const pattern = `${globEscape(snapshotKey(this.options.prefix, namespaceKey, 0).slice(0, -1))}*`;
    let cursor = '0';
    do {
      const [next, keys] = await this.client.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await this.client.del(...keys);
    } while (cursor !== '0');
    await this.client.del(versionKey(this.options.prefix, namespaceKey));
  }

  /** Closes the connection; the change feed sharing it must be closed first. */
  async close(): Promise<void> {
    await closeQuietly(this.client);
  }
}

export async function closeQuietly(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  // QUIT is only worth sending on a live connection; otherwise stop reconnecting at once.
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}
