import type Redis from 'ioredis';
import type { NamespaceData } from '../../domain/model';
import {
  decodeNamespaceData,
  encodeNamespaceData,
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
const SET_SNAPSHOT = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
local current = tonumber(redis.call('GET', KEYS[2]))
if current == nil or current < tonumber(ARGV[3]) then
  redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[2])
else
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
return 1
`;

/** A turn of the event loop between the lines of a large snapshot's text. */
const giveWay = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const globEscape = (text: string): string => text.replace(/[*?[\]\\]/g, '\\$&');

/**
 * Serialized snapshots shared by every instance: `<prefix>snapshot:<ns>:<version>` (lines of JSON, snapshot-codec.ts) and
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
    const text = await this.client.get(snapshotKey(this.options.prefix, namespaceKey, version));
    return text === null ? undefined : decodeNamespaceData(text, namespaceKey, version, giveWay);
  }

  async set(namespaceKey: string, version: number, data: NamespaceData): Promise<void> {
    await this.client.eval(
      SET_SNAPSHOT,
      2,
      snapshotKey(this.options.prefix, namespaceKey, version),
      versionKey(this.options.prefix, namespaceKey),
      await encodeNamespaceData(data, giveWay),
      String(Math.max(1, Math.round(this.options.expiryMs))),
      String(version),
    );
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
