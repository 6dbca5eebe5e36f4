import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { charLength, mergeBriefings, shareFairly, type RepoBriefing } from "../../src/briefing/merge-briefings.js";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const b = (repo: string, markdown: string, activityMs: number): RepoBriefing => ({ repo, markdown, activityMs });

describe("mergeBriefings", () => {
  it("orders by activity, one section a repo, drops empty ones, keeps at most 8", () => {
    const list = Array.from({ length: 11 }, (_, i) => b(`repo-${i}`, `- line of repo ${i}`, i));
    list.push(b("empty", "  \n\n", 100));
    const out = mergeBriefings(list);
    const headings = out.split("\n").filter((l) => l.startsWith("## "));
    expect(headings).toEqual(["## repo-10", "## repo-9", "## repo-8", "## repo-7", "## repo-6", "## repo-5", "## repo-4", "## repo-3"]);
  });

  it("says a shared notice once, before the sections", () => {
    const notice = "> Comity: 3 sessions active in this workspace";
    const out = mergeBriefings([b("a", `${notice}\n- a is busy`, 2), b("b", `${notice}\n- b is quiet`, 1)]);
    expect(out).toBe(`${notice}\n\n## a\n- a is busy\n\n## b\n- b is quiet\n`);
  });

  it("keeps a repo's own facts in its section even when every repo says the same, and never empties a section", () => {
    const notice = "> Comity: 3 sessions active in this workspace";
    const facts = "- Working on main, even with origin/main\n- No uncommitted changes";
    const out = mergeBriefings([
      { repo: "a/lib", markdown: notice, facts, activityMs: 2 },
      { repo: "b/lib", markdown: notice, facts, activityMs: 1 },
    ]);
    expect(out).toBe(`${notice}\n\n## a/lib\n${facts}\n\n## b/lib\n${facts}\n`);
    // A notice next to lines of each repo's own is said once, and the facts stay in each section.
    const lifted = mergeBriefings([
      { repo: "a", markdown: `${notice}\n- a is busy`, facts, activityMs: 2 },
      { repo: "b", markdown: `${notice}\n- b is quiet`, facts, activityMs: 1 },
    ]);
    expect(lifted).toBe(`${notice}\n\n## a\n- a is busy\n${facts}\n\n## b\n- b is quiet\n${facts}\n`);
    // Identical lines in every section, with nothing else, are not a notice: lifting them would empty the sections.
    expect(mergeBriefings([b("x", "- No uncommitted changes", 2), b("y", "- No uncommitted changes", 1)])).toBe("## x\n- No uncommitted changes\n\n## y\n- No uncommitted changes\n");
  });

  it("shares the budget fairly: a short section gives its unused share to a long one", () => {
    const long = Array.from({ length: 200 }, (_, i) => `- long line number ${i}`).join("\n");
    const out = mergeBriefings([b("short", "- tiny", 2), b("long", long, 1)], { maxChars: 1000 });
    expect(charLength(out)).toBeLessThanOrEqual(1000);
    expect(out).toContain("## short\n- tiny\n");
    expect(out).toMatch(/… \(\d+ more lines, \d+ characters, left out\)\n$/);
    // The long section used nearly all that was left.
    expect(charLength(out)).toBeGreaterThan(900);
    expect(shareFairly([10, 500, 500], 600)).toEqual([10, 295, 295]);
    expect(shareFairly([10, 20], 600)).toEqual([10, 20]);
  });

  it("closes a code fence that a cut leaves open", () => {
    const code = ["```ts", ...Array.from({ length: 100 }, (_, i) => `const x${i} = ${i};`), "```"].join("\n");
    const out = mergeBriefings([b("a", code, 1)], { maxChars: 300 });
    const fences = out.split("\n").filter((l) => l.startsWith("```"));
    expect(fences.length % 2).toBe(0);
    expect(charLength(out)).toBeLessThanOrEqual(300);
  });

  it("never splits a surrogate pair, and counts them as one character", () => {
    const emoji = "😀".repeat(50);
    const out = mergeBriefings([b("a", emoji, 1)], { maxChars: 40 });
    expect(LONE_SURROGATE.test(out)).toBe(false);
    expect(charLength(out)).toBeLessThanOrEqual(40);
    expect(charLength("😀a")).toBe(2);
  });
});

const briefing = fc.record({
  repo: fc.string({ minLength: 1, maxLength: 20 }),
  markdown: fc.array(fc.oneof(fc.string({ unit: "binary", maxLength: 120 }), fc.constantFrom("```", "```ts", "> shared notice", "", "- item")), { maxLength: 30 }).map((l) => l.join("\n")),
  activityMs: fc.integer({ min: 0, max: 1000 }),
});

describe("mergeBriefings (properties)", () => {
  it("never exceeds maxChars, never breaks a surrogate, keeps at most 8 repos, is deterministic", () => {
    fc.assert(
      fc.property(fc.array(briefing, { maxLength: 14 }), fc.integer({ min: 0, max: 6000 }), (list, maxChars) => {
        const out = mergeBriefings(list, { maxChars });
        expect(charLength(out)).toBeLessThanOrEqual(maxChars);
        expect(LONE_SURROGATE.test(out)).toBe(false);
        const headings = out.split("\n").filter((l) => l.startsWith("## "));
        expect(headings.length).toBeLessThanOrEqual(8);
        expect(mergeBriefings([...list].reverse(), { maxChars })).toBe(out);
      }),
      { numRuns: 400 },
    );
  });

  it("gives every included repo its heading and at least one line when the budget allows", () => {
    const simple = fc.record({
      repo: fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/),
      markdown: fc.array(fc.stringMatching(/^- [a-z ]{1,60}$/), { minLength: 1, maxLength: 40 }).map((l) => l.join("\n")),
      activityMs: fc.integer({ min: 0, max: 1000 }),
    });
    fc.assert(
      fc.property(fc.uniqueArray(simple, { selector: (x) => x.repo, maxLength: 12 }), (list) => {
        const out = mergeBriefings(list, { maxChars: 6000 });
        const lines = out.split("\n");
        const expected = Math.min(8, list.length);
        const headings = lines.flatMap((l, i) => (l.startsWith("## ") ? [i] : []));
        expect(headings).toHaveLength(expected);
        for (const i of headings) expect(lines[i + 1] ?? "").not.toBe("");
      }),
      { numRuns: 200 },
    );
  });
});
