import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { findOwningRepo } from "../workspace/discover-repos.js";

/** Whether the host's own hook config runs `comity hook --tool <host>`: Cursor's hooks.json (roots, then ~), Copilot's .github/hooks/*.json (roots). */
export function hostRunsComity(host: "cursor" | "copilot", roots: readonly string[], home: string): boolean {
  const files =
    host === "cursor"
      ? [...roots, home].map((d) => path.join(d, ".cursor", "hooks.json"))
      : roots.flatMap((d) => {
          const dir = path.join(findOwningRepo(d)?.root ?? d, ".github", "hooks");
          try {
            return readdirSync(dir)
              .filter((n) => n.endsWith(".json"))
              .map((n) => path.join(dir, n));
          } catch {
            return [];
          }
        });
  const ours = new RegExp(`comity(\\.js|\\.cmd|\\.mjs)?["']?\\s+hook\\s[^"]*--tool\\s+${host}\\b`);
  for (const file of files) {
    try {
      if (ours.test(readFileSync(file, "utf8"))) return true;
    } catch {
      // none there
    }
  }
  return false;
}
