import { parse } from "smol-toml";

/** Markers around the declarations Comity writes into a CompozyOS config.toml (the rest of the file is the user's). */
export const COMPOZY_BEGIN = "# >>> comity hooks (written by `comity init --tool compozy`; rerun it to update)";
export const COMPOZY_END = "# <<< comity hooks";

/** The events Comity declares, each sync with its timeout (input.pre_submit, not prompt.post_assemble too: one prompt event). */
const DECLARED: ReadonlyArray<readonly [string, string]> = [
  ["session.post_create", "5s"],
  ["input.pre_submit", "5s"],
  ["tool.pre_call", "5s"],
  ["tool.post_call", "10s"],
  ["session.pre_stop", "10s"],
  ["session.post_stop", "10s"],
];

/** Comity's `[[hooks.declarations]]` block: a subprocess (CompozyOS runs no shell), sync, with timeouts. */
export function compozyBlock(hookCommand: string): string {
  const [bin = "comity", ...pre] = hookCommand.split(/\s+/).filter((a) => a !== "");
  const lines = [COMPOZY_BEGIN];
  for (const [event, timeout] of DECLARED) {
    const args = [...pre, "--tool", "compozy", "--event", event];
    lines.push(
      "[[hooks.declarations]]",
      `name = ${JSON.stringify(`comity-${event.replace(/\./g, "-")}`)}`,
      `event = ${JSON.stringify(event)}`,
      `mode = "sync"`,
      `timeout = ${JSON.stringify(timeout)}`,
      `command = ${JSON.stringify(bin)}`,
      `args = [${args.map((a) => JSON.stringify(a)).join(", ")}]`,
      "",
    );
  }
  lines.push(COMPOZY_END);
  return `${lines.join("\n")}\n`;
}

/**
 * A config.toml with Comity's block in place: the previous block (between the
 * markers) is replaced where it was, or the block is appended; every other
 * byte of the user's file stays (comments included). Throws when the result
 * is not valid TOML, so a broken file is never written.
 */
export function mergeCompozyConfig(before: string | null, hookCommand: string): string {
  const block = compozyBlock(hookCommand);
  const text = before ?? "";
  const start = text.indexOf(COMPOZY_BEGIN);
  const end = start < 0 ? -1 : text.indexOf(COMPOZY_END, start);
  let after: string;
  if (start >= 0 && end >= 0) {
    const tail = text.slice(end + COMPOZY_END.length).replace(/^\r?\n/, "");
    after = text.slice(0, start) + block + tail;
  } else {
    after = text === "" ? block : `${text.replace(/\s*$/, "")}\n\n${block}`;
  }
  parse(after);
  return after;
}
