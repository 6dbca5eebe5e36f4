import { describe, it } from "vitest";
import { PG_URL, freshPostgres } from "../helpers/serve-fixture.js";
import { scenarioSuite } from "./scenario-suite.js";

if (PG_URL === undefined) {
  describe("coordination scenarios (postgres)", () => {
    it.skip("needs COMITY_TEST_PG_URL (.ci/run starts a PostgreSQL)", () => undefined);
  });
} else {
  // A database of its own per scenario.
  scenarioSuite("postgres", async () => {
    const { url, drop } = await freshPostgres();
    return { db: url, drop };
  });
}
