import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Fixtures shell out to git; give slow CI machines room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ["test/global-setup.ts"],
  },
});
