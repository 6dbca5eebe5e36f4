import * as os from "node:os";
import { describe, expect, it } from "vitest";
import { agentLabel, worktreeFolder } from "../../src/hook/build-request.js";
import { describeSession } from "../../src/coordination/coordination-text.js";

describe("how other agents find this one", () => {
  it("labels it by COMITY_AGENT_NAME, else the host and the terminal pane it runs in", () => {
    expect(agentLabel({ COMITY_AGENT_NAME: "alice" })).toBe("alice");
    expect(agentLabel({ TMUX_PANE: "%3" })).toBe(`${os.hostname()} tmux %3`);
    expect(agentLabel({ ZELLIJ_PANE_ID: "2" })).toBe(`${os.hostname()} zellij 2`);
    expect(agentLabel({})).toBe(os.hostname());
  });

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
