export * from './load-config';
export * from './types';
export { schemaLeaves, envNameOf } from './schema';
export { parseDuration, formatDuration } from './duration';
export { checkDatabaseUrl, redactUrl, type DatabaseKind } from './database-url';
export { renderConfigurationTable } from './reference';
