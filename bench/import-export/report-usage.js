// Preloaded into a measured process (node --require): reports its peak RSS and CPU time on exit.
process.on('exit', () => {
  const cpu = process.cpuUsage();
  process.stderr.write(
    `\nBENCH_MAX_RSS_KB=${process.resourceUsage().maxRSS} BENCH_CPU_US=${cpu.user + cpu.system}\n`,
  );
});
