// eslint-disable-next-line @typescript-eslint/no-require-imports
const { summarize } = require('../../support/summary-reporter.js') as {
  summarize(results: unknown, env: NodeJS.ProcessEnv, rootDir?: string): string[];
};

const file = (name: string, pending: number) => ({
  testFilePath: `/repo/${name}`,
  numPendingTests: pending,
  numTodoTests: 0,
});
const results = {
  numPassedTests: 40,
  numFailedTests: 0,
  numPendingTests: 7,
  numTodoTests: 0,
  testResults: [
    file('test/unit/a.test.ts', 0),
    file('test/contract/cache.test.ts', 5),
    file('test/e2e/outage.serial.test.ts', 2),
  ],
};

describe('the test run summary', () => {
  it('names the backends not covered, why, and how to cover them', () => {
    const text = summarize(results, { VEXIL_TEST_MYSQL_URL: 'mysql://x' }, '/repo').join('\n');
    expect(text).toContain('Backends covered: sqlite, memory, mysql.');
    expect(text).toContain(
      'Backends not covered: postgres (VEXIL_TEST_POSTGRES_URL not set; Debian package postgresql), ' +
        'redis (VEXIL_TEST_REDIS_URL not set; Debian package redis-server).',
    );
    expect(text).toContain('bash scripts/test-dbs.sh start');
  });

  it('lists the files with skipped tests and ends with the totals', () => {
    const lines = summarize(results, {}, '/repo');
    expect(lines).toContain('  test/contract/cache.test.ts: 5');
    expect(lines).toContain('  test/e2e/outage.serial.test.ts: 2');
    expect(lines.join('\n')).not.toContain('a.test.ts');
    expect(lines.filter(Boolean).at(-1)).toBe('40 passed, 0 failed, 7 skipped');
  });

  it('says a required backend without its URL fails, and lists nothing when all ran', () => {
    const required = summarize(results, { VEXIL_TEST_REQUIRE: 'postgres' }).join('\n');
    expect(required).toContain('postgres (required, but VEXIL_TEST_POSTGRES_URL is not set');
    const all = summarize(
      { ...results, numPendingTests: 0, testResults: [file('t.test.ts', 0)] },
      {
        VEXIL_TEST_POSTGRES_URL: 'p',
        VEXIL_TEST_MYSQL_URL: 'm',
        VEXIL_TEST_REDIS_URL: 'r',
      },
    ).join('\n');
    expect(all).toContain('Backends covered: sqlite, memory, postgres, mysql, redis.');
    expect(all).not.toContain('not covered');
    expect(all).not.toContain('Skipped');
  });
});
