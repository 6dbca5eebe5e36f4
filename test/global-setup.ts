/** Says once per run, visibly, when the PostgreSQL half of the serve tests does not run. */
export default function setup(): void {
  if (process.env["COMITY_TEST_PG_URL"] === undefined || process.env["COMITY_TEST_PG_URL"] === "") {
    process.stderr.write(
      "\n*** PostgreSQL storage tests SKIPPED: COMITY_TEST_PG_URL is not set. They run against SQLite only.\n" +
        '*** To run both: eval "$(scripts/test-postgres.sh start)" (as .ci/run does), then npm test.\n\n',
    );
  }
}
