import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vitest/config";

const root = path.dirname(fileURLToPath(import.meta.url));

/**
 * The few CommonJS modules of `src/` (`*.cts`, the hook's thin path) are loaded as Node loads them, from their build
 * in `dist/` (which the global setup checks is newer than `src/`): Vite transforms ES modules only.
 */
const commonJsFromDist: Plugin = {
  name: "comity-cjs-from-dist",
  enforce: "pre",
  resolveId(source, importer) {
    if (!source.endsWith(".cjs") || importer === undefined || !source.startsWith(".")) return null;
    const rel = path.relative(path.join(root, "src"), path.resolve(path.dirname(importer), source));
    if (rel.startsWith("..") || path.isAbsolute(rel)) return null;
    return { id: path.join(root, "dist", rel), external: true };
  },
};

export default defineConfig({
  plugins: [commonJsFromDist],
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
