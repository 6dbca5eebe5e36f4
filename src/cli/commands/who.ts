import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { configDir } from "../../config/config-dir.js";
import { coordinationMode } from "../../config/coordination-mode.js";
import type { CliIo } from "../io.js";

export const WHO_USAGE = `usage: comity who FILE [--json]

Who holds or changed FILE among the active agents of its repo: each one's
host, session id, label, branch and folder, where in the file it works (line
ranges, when known), since when, and its last status. Reach one with
comity message SESSION "TEXT".
`;

/** `comity who`: 0 (nobody is an answer too), 2 bad arguments or a file outside every repo. */
export async function whoCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...args], allowPositionals: true, options: { json: { type: "boolean", default: false }, help: { type: "boolean", short: "h", default: false } } });
  if (values.help) {
    io.stdout.write(WHO_USAGE);
    return 0;
  }
  if (positionals.length !== 1) {
    io.stderr.write(`comity who: give one file\n${WHO_USAGE}`);
    return 2;
  }
  const abs = path.resolve(io.cwd, positionals[0] as string);
  const { findOwningRepo } = await import("../../workspace/discover-repos.js");
  const fs = await import("node:fs");
  // The file may be a file, a folder, or not exist yet (an agent about to create it).
  let dir = abs;
  while (dir !== path.dirname(dir) && !fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) dir = path.dirname(dir);
  const repo = findOwningRepo(dir);
  if (repo === null) {
    io.stderr.write(`comity who: ${positionals[0]} is in no git repo\n`);
    return 2;
  }
  const file = path.relative(repo.root, abs).split(path.sep).join("/");
  const home = io.env["HOME"] ?? os.homedir();
  const mode = coordinationMode(io.env, configDir(io.env, home));
  const { fingerprintsUnder } = await import("../../workspace/repo-fingerprints.js");
  const { askWho } = await import("../../coordination/reach-agents.js");
  const { httpRequest } = await import("../../api/http-request.js");
  const answer = await askWho({
    mode,
    fingerprints: (await fingerprintsUnder(repo.root, mode, io.env)) ?? [],
    path: file,
    now: Date.now(),
    get: (url, token) => httpRequest(url, { method: "GET", token, timeoutMs: 3000 }),
  });
  if (values.json) {
    io.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
    return 0;
  }
  if (answer.sessions.length === 0) {
    io.stdout.write(`nobody active holds or changed ${file}\n`);
    return 0;
  }
  const { oneLine, quoted } = await import("../../coordination/coordination-text.js");
  const lines = [`${file}:`];
  for (const s of answer.sessions) {
    const doing = [s.holds ? "holds it" : null, s.changed ? "changed it" : null].filter((x) => x !== null).join(" and ");
    lines.push(`- ${oneLine(s.description, 300)}: ${doing}${s.lines === null ? "" : `, lines ${s.lines}`}`);
    if (s.status !== null && s.status !== "") lines.push(`  last status: ${quoted(s.status, 200)}`);
    lines.push(`  reach it: comity message ${s.session} "<your message>"`);
  }
  io.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}
