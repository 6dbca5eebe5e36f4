import * as fs from "node:fs";
import * as path from "node:path";
import { openFlatParser } from "../src/parse/native-parser.js";
import { HAPROXY } from "../benchmarks/replica-cluster.mjs";
import { hookClientProblem } from "./helpers/run-cli.js";

/**
 * The sources whose build in `dist/` is missing or older than them. Tests run the built CLI and load the pool's
 * parse worker from `dist/`, so a stale build would test yesterday's code and pass.
 */
export function staleBuilds(root: string): string[] {
  const stale: string[] = [];
  let newest = 0;
  const walk = (rel: string): void => {
    for (const entry of fs.readdirSync(path.join(root, "src", rel), { withFileTypes: true })) {
      const name = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(name);
      else if (/\.c?ts$/.test(entry.name) && !/\.d\.c?ts$/.test(entry.name)) {
        const built = path.join(root, "dist", name.replace(/\.ts$/, ".js").replace(/\.cts$/, ".cjs"));
        const source = fs.statSync(path.join(root, "src", name)).mtimeMs;
        newest = Math.max(newest, source);
        if (!fs.existsSync(built) || fs.statSync(built).mtimeMs < source) stale.push(name);
      }
    }
  };
  walk("");
  // The CLI runs from its bundle of dist/ (scripts/bundle-cli.mjs): made after tsc, so older than no source.
  const bundle = path.join(root, "dist", "cli-bundle", "main.js");
  if (!fs.existsSync(bundle) || fs.statSync(bundle).mtimeMs < newest) stale.push("dist/cli-bundle/main.js");
  return stale.sort();
}

/** Says once per run, visibly, when the PostgreSQL half of the serve tests or the native half of the parser tests does not run. */
export default function setup(): void {
  const stale = staleBuilds(path.resolve(import.meta.dirname, ".."));
  if (stale.length > 0) {
    throw new Error(`dist/ is older than src/ (${stale.slice(0, 3).join(", ")}${stale.length > 3 ? `, and ${stale.length - 3} more` : ""}): run npm run build, or npm test, which builds first.`);
  }
  const opened = openFlatParser();
  // A build of the addon from before the change watch (a prebuild left in a checkout) would skip the warm analyze tests.
  const native =
    opened.problem ??
    (process.platform === "linux" && opened.addon.watchOpen === undefined
      ? "the native addon has no change watch (an older build): npm_config_build_from_source=true node scripts/build-native.mjs"
      : null);
  if (native !== null) {
    if (process.env["COMITY_TEST_REQUIRE_NATIVE"] === "1") throw new Error(`COMITY_TEST_REQUIRE_NATIVE=1, but the native parser does not load: ${native}`);
    process.stderr.write(
      `\n*** Native parser tests SKIPPED: ${native}. Symbols are tested on web-tree-sitter only.\n*** To run both: node scripts/build-native.mjs (needs a C compiler), then npm test.\n\n`,
    );
  }
  const client = hookClientProblem();
  if (client !== null) {
    if (process.env["COMITY_TEST_REQUIRE_NATIVE"] === "1") throw new Error(`COMITY_TEST_REQUIRE_NATIVE=1, but ${client}`);
    process.stderr.write(`\n*** Native hook client tests SKIPPED: ${client}.\n\n`);
  }
  if (HAPROXY === undefined) process.stderr.write("\n*** Replicas test SKIPPED: no haproxy (apt-get install haproxy, as .ci/run does).\n\n");
  if (process.env["COMITY_TEST_PG_URL"] === undefined || process.env["COMITY_TEST_PG_URL"] === "") {
    process.stderr.write(
      "\n*** PostgreSQL storage tests SKIPPED: COMITY_TEST_PG_URL is not set. They run against SQLite only.\n" +
        '*** To run both: eval "$(scripts/test-postgres.sh start)" (as .ci/run does), then npm test.\n\n',
    );
  }
}
