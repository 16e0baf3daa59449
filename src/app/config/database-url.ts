import { storageAdapterFor } from '../../adapters/storage';
import { redactSecrets } from '../../adapters/storage/typeorm/database-url';
import { ConfigError } from './config-error';
import type { VexilConfig } from './types';

/** Checks db.url with the storage adapter that claims its scheme; returns the adapter's name. */
export function checkDatabaseUrl(url: string): string {
  return storageAdapterFor(url).name;
}

/** The URL with any password replaced, safe to log. */
export const redactUrl = (url: string): string => redactSecrets(url);

/** Flipt's split form of the database setting, used when db.url is not given. */
export const SPLIT_DATABASE_KEYS = [
  'db.protocol',
  'db.host',
  'db.port',
  'db.name',
  'db.user',
  'db.password',
] as const;

/**
 * db.url from the split form: `protocol://user:password@host:port/name`, or for SQLite
 * `file:` and the path in db.name. Throws naming the key that is missing or wrong.
 */
export function composeDatabaseUrl(db: VexilConfig['db']): string {
  const need = (value: string, key: string): string => {
    if (value === '')
      throw new ConfigError(
        `${key}: must be set when db.url is not (with db.protocol ${db.protocol || 'unset'})`,
      );
    return value;
  };
  need(db.protocol, 'db.protocol');
  let url: string;
  if (db.protocol === 'sqlite' || db.protocol === 'file') {
    url = `file:${need(db.name, 'db.name')}`;
  } else {
    const credentials =
      db.user === '' && db.password === ''
        ? ''
        : `${encodeURIComponent(db.user)}${db.password === '' ? '' : `:${encodeURIComponent(db.password)}`}@`;
    const port = db.port === 0 ? '' : `:${db.port}`;
    url = `${db.protocol}://${credentials}${need(db.host, 'db.host')}${port}/${encodeURIComponent(need(db.name, 'db.name'))}`;
  }
  try {
    checkDatabaseUrl(url);
  } catch (e) {
    throw new ConfigError(`db.protocol: ${(e as Error).message}`);
  }
  return url;
}
