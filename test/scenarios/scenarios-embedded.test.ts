import { scenarioSuite } from "./scenario-suite.js";

// No server and no COMITY_API_URL: every hook of the scenario coordinates through its config folder's store, as
// agents on one machine do out of the box. Same scenarios, same expectations; the ones that need two machines are
// skipped (they say why).
scenarioSuite("embedded", async () => ({ mode: "embedded", drop: async () => undefined }));
