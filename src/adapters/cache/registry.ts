import type { Logger } from '../../ports';
import type { CacheBackendAdapter, CachingAdapters } from './cache-backend';
import { memoryCacheBackend } from './memory-cache-backend';
import { redisCacheBackend } from './redis-cache-backend';

/** Every cache backend, by the name `caching.backend` takes. Adding one is adding it here. */
export const CACHE_BACKENDS: ReadonlyArray<CacheBackendAdapter<never>> = [
  memoryCacheBackend,
  redisCacheBackend,
];

export const CACHE_BACKEND_NAMES: readonly string[] = CACHE_BACKENDS.map((b) => b.name);

/**
 * Builds the cache, change feed and scheduler of the backend `name` from its configuration
 * section (`caching.<name>`).
 */
export function createCaching(
  name: string,
  section: unknown,
  context: { readonly logger?: Logger } = {},
): CachingAdapters {
  const backend = CACHE_BACKENDS.find((b) => b.name === name);
  if (backend === undefined) {
    throw new Error(`unknown cache backend "${name}" (known: ${CACHE_BACKEND_NAMES.join(', ')})`);
  }
  return backend.create(section as never, context);
}
