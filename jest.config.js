/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // ui/test: the dashboard's own logic (ui/src/lib), plain TypeScript without a DOM.
  roots: ['<rootDir>/test', '<rootDir>/ui/test'],
  testMatch: ['**/*.test.ts'],
  // Timing-sensitive suites (propagation percentiles, outages) run afterwards, alone:
  // see the "test" script.
  testPathIgnorePatterns: ['/node_modules/', '\\.serial\\.test\\.ts$'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
    '/@opentelemetry/otlp-exporter-base/.+\\.js$':
      '<rootDir>/test/support/node-builtin-import-transform.js',
  },
  transformIgnorePatterns: ['/node_modules/(?!@opentelemetry/otlp-exporter-base/)'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 30000,
  // Suites share databases per backend; run them one file at a time per worker.
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
