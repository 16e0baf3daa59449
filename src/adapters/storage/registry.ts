import type { StorageAdapter } from './storage-adapter';
import { memoryStorageAdapter } from './memory/memory-storage-adapter';
import { DatabaseUrlError, redactSecrets } from './typeorm/database-url';
import { sqlStorageAdapter } from './typeorm/sql-storage';

/** Every storage adapter, found by the scheme of `db.url`. Adding one is adding it here. */
export const STORAGE_ADAPTERS: readonly StorageAdapter[] = [
  sqlStorageAdapter,
  memoryStorageAdapter,
];

/** The URL's scheme in lower case; '' for a plain path (also `C:\...` and `:memory:`). */
export function urlScheme(url: string): string {
  const raw = url.trim();
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(raw);
  if (!match || /^[a-zA-Z]:[\\/]/.test(raw)) return '';
  return (match[1] ?? '').toLowerCase();
}

/** The adapter that accepts `url`, having checked it; a one-line DatabaseUrlError otherwise. */
export function storageAdapterFor(url: string): StorageAdapter {
  const scheme = urlScheme(url);
  const adapter = STORAGE_ADAPTERS.find((a) => a.schemes.includes(scheme));
  if (adapter === undefined) {
    const supported = STORAGE_ADAPTERS.flatMap((a) => a.schemes)
      .map((s) => (s === '' ? 'a file path' : `${s}:`))
      .join(', ');
    throw new DatabaseUrlError(
      `invalid database url "${redactSecrets(url.trim())}": unsupported scheme "${scheme}:" (supported: ${supported})`,
    );
  }
  adapter.check(url);
  return adapter;
}
