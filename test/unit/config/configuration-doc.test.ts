import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderConfigurationTable } from '../../../src/app/config';

describe('docs/configuration.md', () => {
  it('lists every key with its default and environment name, as the schema has them', () => {
    const doc = readFileSync(join(__dirname, '../../../docs/configuration.md'), 'utf8');
    expect(doc).toContain(renderConfigurationTable());
  });
});
