import * as os from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One test file per core: most files wait on git or a CLI process much of the time, and vitest's default
    // (one core less) left a 2-core machine running them one at a time.
    maxWorkers: Math.max(2, os.availableParallelism()),
    // Fixtures shell out to git; give slow CI machines room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ["test/global-setup.ts"],
    // Hooks the tests run go through no daemon unless a test starts one (test/daemon/).
    env: { COMITY_DAEMON: "off" },
  },
});
