import * as os from "node:os";
import { parseArgs } from "node:util";
import { configDir } from "../../config/config-dir.js";
import { coordinationMode } from "../../config/coordination-mode.js";
import type { CliIo } from "../io.js";

export const MESSAGE_USAGE = `usage: comity message SESSION-OR-LABEL TEXT...

Leaves a few words for another agent working on this repo (or anywhere in
your team): it gets them as context at its next prompt, tool use or session
start, once. SESSION-OR-LABEL is what Comity's warnings name it by: its
session id (the first characters of it do), or its label. Any agent can run
this from its shell tool; comity status lists who is active.
  comity message 0192f0c4 "I am moving parseConfig to config/parse.ts: wait for my commit"
`;

/** `comity message`: 0 left for the other agent, 2 bad arguments or no such session. */
export async function messageCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...args], allowPositionals: true, options: { help: { type: "boolean", short: "h", default: false } } });
  if (values.help) {
    io.stdout.write(MESSAGE_USAGE);
    return 0;
  }
  const [to, ...words] = positionals;
  const text = words.join(" ").trim();
  if (to === undefined || text === "") {
    io.stderr.write(`comity message: give whom to reach and what to say\n${MESSAGE_USAGE}`);
    return 2;
  }
  const home = io.env["HOME"] ?? os.homedir();
  const mode = coordinationMode(io.env, configDir(io.env, home));
  const { findOwningRepo } = await import("../../workspace/discover-repos.js");
  const repo = findOwningRepo(io.cwd);
  const { fingerprintsUnder } = await import("../../workspace/repo-fingerprints.js");
  const fingerprints = repo === null ? [] : ((await fingerprintsUnder(repo.root, mode, io.env)) ?? []);
  const { agentLabel, worktreeFolder } = await import("../../hook/build-request.js");
  const { readRepoState } = await import("../../state/read-repo-state.js");
  const branch = repo === null ? null : ((await readRepoState(repo).catch(() => null))?.branch ?? null);
  const { leaveMessage } = await import("../../coordination/reach-agents.js");
  const { httpRequest } = await import("../../api/http-request.js");
  const answer = await leaveMessage({
    mode,
    request: {
      repo: { remote_fingerprints: fingerprints },
      to,
      text: text.slice(0, 2000),
      from: { label: agentLabel(io.env), worktree: repo === null ? null : worktreeFolder(repo.root, home), branch },
    },
    now: Date.now(),
    post: (url, token, body) => httpRequest(url, { method: "POST", token, body, timeoutMs: 3000 }),
  });
  io.stdout.write(`left for ${answer.to.description}: it is given at its next prompt, tool use or session start\n`);
  return 0;
}
