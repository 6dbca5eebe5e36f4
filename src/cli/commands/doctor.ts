import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { httpRequest } from "../../api/http-request.js";
import { configDir } from "../../config/config-dir.js";
import { runDoctor, type CheckStatus } from "../../doctor/run-doctor.js";
import type { CliIo } from "../io.js";

export const DOCTOR_USAGE = `usage: comity doctor [--json] [DIR]

Checks that Comity works from DIR (default: the current folder): each host's
hooks installed and current, which coordination hooks use and that it works
(this machine's embedded store, made and opened; or the team API from
COMITY_API_URL / comity login, answering and accepting the token; or off,
with COMITY_API_URL=off), the config folder writable, the repos in view and
their remotes, and fail-open lines in hook.log over the last 24 hours.
Exit code 1 when something needs fixing.
`;

const MARK: Record<CheckStatus, string> = { ok: "ok  ", warn: "warn", fail: "FAIL", skip: "-   " };

/** `comity doctor`: 0 all fine (warnings included), 1 something needs fixing, 2 bad arguments. */
export async function doctorCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: { json: { type: "boolean", default: false }, help: { type: "boolean", short: "h", default: false } },
  });
  if (values.help) {
    io.stdout.write(DOCTOR_USAGE);
    return 0;
  }
  if (positionals.length > 1) {
    io.stderr.write(`comity doctor: one folder at most\n${DOCTOR_USAGE}`);
    return 2;
  }
  const home = io.env["HOME"] ?? os.homedir();
  const report = await runDoctor({
    cwd: path.resolve(io.cwd, positionals[0] ?? "."),
    home,
    env: io.env,
    configDir: configDir(io.env, home),
    get: (url, token) => httpRequest(url, { method: "GET", token, timeoutMs: 1500 }),
  });
  if (values.json) {
    io.stdout.write(`${JSON.stringify({ schema: "comity.doctor/1", ok: report.ok, checks: report.checks }, null, 2)}\n`);
  } else {
    const colour = io.stdout.isTTY === true && io.env["NO_COLOR"] === undefined;
    const paint = (s: CheckStatus, text: string) =>
      !colour ? text : s === "ok" ? `\u001b[32m${text}\u001b[0m` : s === "fail" ? `\u001b[31m${text}\u001b[0m` : s === "warn" ? `\u001b[33m${text}\u001b[0m` : text;
    const width = Math.max(...report.checks.map((c) => c.title.length));
    for (const c of report.checks) io.stdout.write(`${paint(c.status, MARK[c.status])}  ${c.title.padEnd(width)}  ${c.detail}\n`);
    io.stdout.write(report.ok ? "everything needed works\n" : "something needs fixing (FAIL lines)\n");
  }
  return report.ok ? 0 : 1;
}
