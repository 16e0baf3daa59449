import {
  parseDatabaseUrl,
  redactSecrets,
  type DatabaseDialect,
} from '../../adapters/storage/typeorm/database-url';

export type DatabaseKind = DatabaseDialect;

/** Checks db.url with the storage's own parser and says which database it names. */
export function checkDatabaseUrl(url: string): DatabaseKind {
  return parseDatabaseUrl(url).dialect;
}

/** The URL with any password replaced, safe to log. */
export const redactUrl = (url: string): string => redactSecrets(url);
