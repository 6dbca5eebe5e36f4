// Preloaded with `node --import`: prints the process's peak RSS (KiB) to stderr at exit, for benchmarks.
process.on("exit", () => {
  process.stderr.write(`\nPEAK_RSS_KIB=${process.resourceUsage().maxRSS}\n`);
});
