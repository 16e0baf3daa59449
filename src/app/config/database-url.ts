import { storageAdapterFor } from '../../adapters/storage';
import { redactSecrets } from '../../adapters/storage/typeorm/database-url';

/** Checks db.url with the storage adapter that claims its scheme; returns the adapter's name. */
export function checkDatabaseUrl(url: string): string {
  return storageAdapterFor(url).name;
}

/** The URL with any password replaced, safe to log. */
export const redactUrl = (url: string): string => redactSecrets(url);
