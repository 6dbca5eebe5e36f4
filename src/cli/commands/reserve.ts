import { parseArgs } from "node:util";
import type { CliIo } from "../io.js";

export const RESERVE_USAGE = `usage: comity reserve PATH... [--minutes N] [--shared] [--reason TEXT] [--host HOST]
       comity release [RSV-n | PATH]...

reserve claims files of this repo for your session before a larger change: a
file, a folder (src/billing/) or a glob (src/**/*.sql). Another agent's edit
there is told and denied once (shared: told only). It ends after --minutes
(default 30, at most 480), at release, or when your session ends. An agent
runs it from its shell tool: the session is the latest active one of this
working tree (of --host, when given). The MCP server's reserve and release do
the same. release with no argument ends all of the session's reservations.
`;

/** `comity reserve` and `comity release`: 0 done, 2 bad arguments or refused (the reason on stderr). */
export async function reserveCommand(verb: "reserve" | "release", args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      minutes: { type: "string", default: "30" },
      shared: { type: "boolean", default: false },
      reason: { type: "string" },
      host: { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    io.stdout.write(RESERVE_USAGE);
    return 0;
  }
  const minutes = Number(values.minutes);
  if (verb === "reserve" && (positionals.length === 0 || !Number.isInteger(minutes) || minutes < 1 || minutes > 480)) {
    io.stderr.write(`comity reserve: ${positionals.length === 0 ? "give the files to reserve" : "--minutes is a whole number from 1 to 480"}\n${RESERVE_USAGE}`);
    return 2;
  }
  const { releaseForCaller, reserveForCaller } = await import("../../mcp/claims.js");
  const ctx = { env: io.env, cwd: io.cwd, host: values.host ?? null };
  const { ComityError } = await import("../../errors/comity-error.js");
  try {
    const r =
      verb === "reserve"
        ? await reserveForCaller(ctx, { paths: positionals, minutes, exclusive: !values.shared, reason: values.reason ?? null })
        : await releaseForCaller(ctx, {
            refs: positionals.filter((p) => /^RSV-\d+$/.test(p)),
            paths: positionals.filter((p) => !/^RSV-\d+$/.test(p)),
          });
    io.stdout.write(values.json ? `${JSON.stringify(r.structured, null, 2)}\n` : `${r.text}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof ComityError)) throw error;
    io.stderr.write(`comity ${verb}: ${error.message}\n`);
    return 2;
  }
}
