export * from './load-config';
export * from './types';
export { schemaLeaves, envNameOf } from './schema';
export { parseDuration, formatDuration } from './duration';
export { checkDatabaseUrl, redactUrl } from './database-url';
export { renderConfigurationTable } from './reference';
