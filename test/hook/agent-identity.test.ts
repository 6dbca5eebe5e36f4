import { spawnSync } from "node:child_process";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import hostTerminalModule from "../../src/hook/host-terminal.cjs";
import { agentLabel, worktreeFolder } from "../../src/hook/build-request.js";
import { describeSession } from "../../src/coordination/coordination-text.js";

describe("how other agents find this one", () => {
  it("labels it by COMITY_AGENT_NAME, else the host and the terminal pane it runs in", () => {
    expect(agentLabel({ COMITY_AGENT_NAME: "alice" })).toBe("alice");
    expect(agentLabel({ TMUX_PANE: "%3" })).toBe(`${os.hostname()} tmux %3`);
    expect(agentLabel({ ZELLIJ_PANE_ID: "2" })).toBe(`${os.hostname()} zellij 2`);
    expect(agentLabel({})).toBe(os.hostname());
    // Two agents with no multiplexer: the terminal each host runs in (found up the hook's process tree).
    expect(agentLabel({ COMITY_HOST_TTY: "pts/4" })).toBe(`${os.hostname()} pts/4`);
    expect(agentLabel({ TMUX_PANE: "%3", COMITY_HOST_TTY: "pts/4" })).toBe(`${os.hostname()} tmux %3`);
  });

  it("finds the host's terminal up the process tree, past processes without one (the host detaches its hooks)", () => {
    const { hostTerminal, terminalName } = hostTerminalModule;
    // pid (comm) state ppid pgrp session tty_nr ...: 30 (a hook) has none, its parent 20 (the host) has pts/5.
    const stats: Record<number, string> = { 30: "30 (node) S 25 30 30 0 -1", 25: "25 (sh -c x)) S 20 25 25 0 -1", 20: `20 (claude) S 1 20 20 ${136 * 256 + 5} 20` };
    expect(hostTerminal(30, (pid) => stats[pid] ?? "")).toBe("pts/5");
    expect(hostTerminal(25, () => "25 (x) S 1 1 1 0 -1")).toBeNull();
    expect(terminalName((137 << 8) | 2)).toBe("pts/258");
    expect(terminalName((4 << 8) | 1)).toBe("tty 4:1");
  });

  it.skipIf(process.platform !== "linux" || spawnSync("sh", ["-c", "command -v script && command -v setsid"]).status !== 0)(
    "finds a real terminal from a process started without one, as Claude Code starts its hooks",
    () => {
      const module = path.resolve("dist/hook/host-terminal.cjs");
      const probe = `setsid -w ${JSON.stringify(process.execPath)} -e 'process.stdout.write(String(require(${JSON.stringify(module)}).hostTerminal(process.ppid)))'`;
      const r = spawnSync("script", ["-qec", probe, "/dev/null"], { encoding: "utf8" });
      expect(r.stdout.trim()).toMatch(/^pts\/\d+$/);
    },
  );

  it("names its working tree's folder from the home folder, so two worktrees of one repo are two places", () => {
    expect(worktreeFolder("/home/me/work/vite", "/home/me")).toBe("~/work/vite");
    expect(worktreeFolder("/home/me/work/vite-feature", "/home/me")).toBe("~/work/vite-feature");
    expect(worktreeFolder("/srv/checkouts/vite-feature", "/home/me")).toBe("checkouts/vite-feature");
    const a = describeSession({ tool: "claude_code", external_id: "0192f0c4-7d1e-7a8b-9c2d-3e4f5a6b7c8d", branch: "main", label: "vm tmux %1", cwd_path: ".", worktree: "~/work/vite" });
    const b = describeSession({ tool: "codex", external_id: "77aa0c4-x", branch: "feat", label: "vm tmux %2", cwd_path: "packages/vite", worktree: "~/work/vite-feature" });
    expect(a).toBe('Claude Code session 0192f0c4 ("vm tmux %1", branch `main`, in `~/work/vite`)');
    expect(b).toBe('Codex session 77aa0c4-x ("vm tmux %2", branch `feat`, in `~/work/vite-feature` at `packages/vite`)');
  });
});
