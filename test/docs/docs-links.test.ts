import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

// The docs a clone has: a short README and docs/, whose every link resolves inside the repo.

const root = path.resolve(import.meta.dirname, "../..");
const pages = [
  "README.md",
  "benchmarks/README.md",
  ...fs
    .readdirSync(path.join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** Markdown's headings as GitHub makes anchors of them. */
function anchors(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/^#{1,6}\s+(.+)$/gm))
    out.add(
      (m[1] ?? "")
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, "")
        .replace(/\s/g, "-"),
    );
  return out;
}

describe("the docs", () => {
  it("a README under 250 lines that points into docs/", () => {
    const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
    expect(readme.split("\n").length).toBeLessThan(250);
    for (const page of ["coordination", "hooks", "server", "engine", "architecture", "cli", "compatibility"]) expect(readme).toContain(`(docs/${page}.md)`);
  });

  it("a README whose single lines install from a fresh clone and run the main job, and run the tests", () => {
    const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
    const lines = readme.split("\n").map((l) => l.replace(/\s+#.*$/, "").trim());
    expect(lines).toContain("npm ci && npm link && comity analyze ~/work");
    expect(lines).toContain("npm ci && npm test");
    // The test command is the one CI runs.
    expect(fs.readFileSync(path.join(root, ".ci/run"), "utf8")).toMatch(/^npm test$/m);
  });

  it.each(pages)("every link of %s resolves inside the repo, anchors included", (page) => {
    const text = fs.readFileSync(path.join(root, page), "utf8");
    const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? "").filter((l) => !/^[a-z]+:/.test(l));
    for (const link of links) {
      const [file, anchor] = link.split("#") as [string, string | undefined];
      const target = file === "" ? path.join(root, page) : path.resolve(path.dirname(path.join(root, page)), file);
      expect(path.relative(root, target).startsWith(".."), `${page}: ${link} leaves the repo`).toBe(false);
      expect(fs.existsSync(target), `${page}: ${link}`).toBe(true);
      if (anchor !== undefined && target.endsWith(".md")) expect(anchors(fs.readFileSync(target, "utf8")).has(anchor), `${page}: ${link}`).toBe(true);
    }
    expect(text).not.toMatch(/\.\.\/shared\//);
  });
});
