import type Redis from 'ioredis';
import type { ChangedKeys } from '../../domain/model';
import type { ChangeFeed, ChangeListener, ChangeNotice, Logger } from '../../ports';
import { changesChannel } from './cache-keys';
import { closeQuietly } from './redis-snapshot-cache';
import { watchConnection } from './redis-connection';

export interface RedisChangeFeedOptions {
  readonly prefix: string;
  readonly logger?: Logger;
}

export function parseChangeNotice(message: string): ChangeNotice | undefined {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { namespaceKey, version, changed } = value as Record<string, unknown>;
  if (typeof namespaceKey !== 'string' || typeof version !== 'number') return undefined;
  if (!Number.isSafeInteger(version)) return undefined;
  const keys = parseChangedKeys(changed);
  // A notice without readable keys still says the version moved: it is read whole.
  return keys === undefined ? { namespaceKey, version } : { namespaceKey, version, changed: keys };
}

const isKeyList = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((k) => typeof k === 'string');

function parseChangedKeys(value: unknown): ChangedKeys | undefined {
  if (value === 'all') return 'all';
  if (typeof value !== 'object' || value === null) return undefined;
  const { flags, segments } = value as Record<string, unknown>;
  if (!isKeyList(flags) || !isKeyList(segments)) return undefined;
  return { flags, segments };
}

/**
 * Change notices over Redis pub/sub on `<prefix>changes`, as JSON {namespaceKey, version,
 * changed}, `changed` being {flags: [...], segments: [...]} or "all" (absent: unknown).
 * Publishing uses the given command connection; subscribing needs a connection of its own,
 * which keeps reconnecting while Redis is away. Notices sent meanwhile are lost, so every
 * reconnect is reported to the subscribers as a gap.
 */
export class RedisChangeFeed implements ChangeFeed {
  private readonly subscriber: Redis;
  private readonly channel: string;
  private readonly listeners = new Set<ChangeListener>();
  private readonly gapListeners = new Set<() => void>();
  private wasReady = false;
  private subscribed = false;

  constructor(
    private readonly publisher: Redis,
    options: RedisChangeFeedOptions,
  ) {
    this.channel = changesChannel(options.prefix);
    this.subscriber = publisher.duplicate({
      // The subscription must survive start-up and outages: queue it until connected.
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
      commandTimeout: undefined,
      autoResubscribe: true,
    });
    watchConnection(this.subscriber, 'change-feed', options.logger);
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      const notice = parseChangeNotice(message);
      if (notice === undefined) return;
      for (const listener of [...this.listeners]) listener(notice);
    });
    this.subscriber.on('ready', () => {
      if (this.wasReady) for (const gap of [...this.gapListeners]) gap();
      this.wasReady = true;
    });
    this.subscriber.subscribe(this.channel).then(
      () => {
        this.subscribed = true;
      },
      (err: unknown) => {
        options.logger?.warn('change feed subscription failed', {
          error: err instanceof Error ? err.message : String(err),
        });
      },
    );
  }

  async publish(namespaceKey: string, version: number, changed?: ChangedKeys): Promise<void> {
    await this.publisher.publish(
      this.channel,
      JSON.stringify(
        changed === undefined ? { namespaceKey, version } : { namespaceKey, version, changed },
      ),
    );
  }

  subscribe(listener: ChangeListener, onGap?: () => void): () => void {
    const own: ChangeListener = (notice) => listener(notice);
    const gap = onGap === undefined ? undefined : (): void => onGap();
    this.listeners.add(own);
    if (gap !== undefined) this.gapListeners.add(gap);
    return () => {
      this.listeners.delete(own);
      if (gap !== undefined) this.gapListeners.delete(gap);
    };
  }

  /** Resolves true once the subscription is active, false after `timeoutMs` (start-up, tests). */
  async ready(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!(this.subscribed && this.subscriber.status === 'ready')) {
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return true;
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.gapListeners.clear();
    await closeQuietly(this.subscriber);
  }
}
