import { formatDuration } from './duration';
import { envNameOf, schemaLeaves } from './schema';

function describeDefault(format: unknown, value: unknown): string {
  if (format === 'duration' && typeof value === 'number') return formatDuration(value);
  if (typeof value === 'string') return value === '' ? '""' : value;
  return JSON.stringify(value);
}

function describeFormat(format: unknown): string {
  if (Array.isArray(format)) return format.join(' \\| ');
  if (typeof format === 'string') {
    const names: Record<string, string> = {
      port: 'port',
      nat: 'integer ≥ 0',
      bool: 'boolean',
      duration: 'duration',
      'db-url': 'database URL',
      ratio: '0..1',
      'string-map': 'map of strings',
      'log-level': 'debug \\| info \\| warn \\| error',
    };
    return names[format] ?? format;
  }
  return 'string';
}

/** The table of every configuration key, as docs/configuration.md carries it. */
export function renderConfigurationTable(): string {
  const rows = schemaLeaves().map(([path, leaf]) => {
    const secret = leaf.sensitive ? ' (secret: never logged)' : '';
    return `| \`${path}\` | \`${envNameOf(path)}\` | ${describeFormat(leaf.format)} | \`${describeDefault(leaf.format, leaf.default)}\` | ${leaf.doc}${secret} |`;
  });
  return [
    '| key | environment | type | default | meaning |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
