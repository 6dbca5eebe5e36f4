import { openFlatParser } from "../src/parse/native-parser.js";

/** Says once per run, visibly, when the PostgreSQL half of the serve tests or the native half of the parser tests does not run. */
export default function setup(): void {
  const native = openFlatParser().problem;
  if (native !== null) {
    if (process.env["COMITY_TEST_REQUIRE_NATIVE"] === "1") throw new Error(`COMITY_TEST_REQUIRE_NATIVE=1, but the native parser does not load: ${native}`);
    process.stderr.write(`\n*** Native parser tests SKIPPED: ${native}. Symbols are tested on web-tree-sitter only.\n*** To run both: node scripts/build-native.mjs (needs a C compiler), then npm test.\n\n`);
  }
  if (process.env["COMITY_TEST_PG_URL"] === undefined || process.env["COMITY_TEST_PG_URL"] === "") {
    process.stderr.write(
      "\n*** PostgreSQL storage tests SKIPPED: COMITY_TEST_PG_URL is not set. They run against SQLite only.\n" +
        '*** To run both: eval "$(scripts/test-postgres.sh start)" (as .ci/run does), then npm test.\n\n',
    );
  }
}
