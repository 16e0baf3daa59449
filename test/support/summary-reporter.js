// Prints what a CI reader needs at the end of a run: which database backends the run covered
// and, for those it did not, why and how to include them; the files whose tests were skipped;
// and one closing line, "N passed, N failed".

const BACKENDS = [
  ['postgres', 'VEXIL_TEST_POSTGRES_URL', 'postgresql'],
  ['mysql', 'VEXIL_TEST_MYSQL_URL', 'mariadb-server'],
  ['redis', 'VEXIL_TEST_REDIS_URL', 'redis-server'],
];
const MAX_FILES = 12;

/** The lines to print for a finished run (`results` as jest's onRunComplete gives them). */
function summarize(results, env, rootDir) {
  const lines = [''];
  const required = new Set(
    (env.VEXIL_TEST_REQUIRE ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
  const ran = ['sqlite', 'memory'];
  const missing = [];
  for (const [name, variable, pkg] of BACKENDS) {
    if ((env[variable] ?? '').trim() !== '') ran.push(name);
    else if (required.has(name))
      missing.push(`${name} (required, but ${variable} is not set: its tests fail)`);
    else missing.push(`${name} (${variable} not set; Debian package ${pkg})`);
  }
  lines.push(`Backends covered: ${ran.join(', ')}.`);
  if (missing.length > 0) {
    lines.push(`Backends not covered: ${missing.join(', ')}.`);
    lines.push(
      '  To cover them: bash scripts/test-dbs.sh start && eval "$(bash scripts/test-dbs.sh env)" ' +
        '(README, "Tests against every backend").',
    );
  }
  const skippedFiles = results.testResults
    .map((file) => ({
      path: rootDir ? file.testFilePath.replace(`${rootDir}/`, '') : file.testFilePath,
      skipped: file.numPendingTests + file.numTodoTests,
    }))
    .filter((f) => f.skipped > 0)
    .sort((a, b) => a.path.localeCompare(b.path));
  if (skippedFiles.length > 0) {
    lines.push('Skipped tests by file (a backend not covered, or a -t filter):');
    for (const f of skippedFiles.slice(0, MAX_FILES)) lines.push(`  ${f.path}: ${f.skipped}`);
    if (skippedFiles.length > MAX_FILES) {
      lines.push(`  ... and ${skippedFiles.length - MAX_FILES} more files`);
    }
  }
  const skipped = results.numPendingTests + results.numTodoTests;
  const line = `${results.numPassedTests} passed, ${results.numFailedTests} failed`;
  lines.push('', skipped > 0 ? `${line}, ${skipped} skipped` : line, '');
  return lines;
}

class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig?.rootDir;
  }

  onRunComplete(_contexts, results) {
    process.stdout.write(summarize(results, process.env, this.rootDir).join('\n'));
  }
}
SummaryReporter.summarize = summarize;
module.exports = SummaryReporter;
