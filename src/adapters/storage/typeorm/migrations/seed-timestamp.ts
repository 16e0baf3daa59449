/** Now as the domain Timestamp text (millisecond clock, six digits), for rows seeded by a migration. */
export function seedTimestamp(): string {
  return new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export const DEFAULT_NAMESPACE = {
  key: 'default',
  name: 'Default',
  description: 'Default namespace',
} as const;
