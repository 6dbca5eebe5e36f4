import * as os from "node:os";
import { parseArgs } from "node:util";
import { configDir } from "../../config/config-dir.js";
import { coordinationMode } from "../../config/coordination-mode.js";
import { asPolicy, POLICIES } from "../../coordination/wire.js";
import type { CliIo } from "../io.js";

export const POLICY_USAGE = `usage: comity policy [first_contact|advisory|block]

Shows or sets the policy of this machine's coordination (the embedded store,
used when no API is configured), effective at the next hook event:
  first_contact  the default: the first edit that meets a conflict is denied
                 once, with the whole warning; the retry is allowed
  advisory       warnings as context only
  block          as first_contact, and editing a file another active session
                 holds is denied
With a team server, the team's policy is set there: comity serve policy --team NAME.
`;

/** `comity policy`: 0, or 2 on bad arguments or when an API decides instead. */
export async function policyCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...args], allowPositionals: true, options: { help: { type: "boolean", short: "h", default: false } } });
  if (values.help) {
    io.stdout.write(POLICY_USAGE);
    return 0;
  }
  const [wanted, ...extra] = positionals;
  if (extra.length > 0 || (wanted !== undefined && !(POLICIES as readonly string[]).includes(wanted))) {
    io.stderr.write(`comity policy: the policy is one of ${POLICIES.join(", ")}\n${POLICY_USAGE}`);
    return 2;
  }
  const dir = configDir(io.env, io.env["HOME"] ?? os.homedir());
  const mode = coordinationMode(io.env, dir);
  if (mode.kind !== "embedded") {
    io.stderr.write(
      mode.kind === "off"
        ? "comity policy: coordination is off (COMITY_API_URL=off)\n"
        : "comity policy: hooks use the API, whose team policy decides: comity serve policy --team NAME on the server\n",
    );
    return 2;
  }
  const { openEmbeddedStore } = await import("../../coordination/embedded-store.js");
  const store = await openEmbeddedStore(mode.file);
  try {
    if (wanted !== undefined) await store.setPolicy(asPolicy(wanted));
    io.stdout.write(`${await store.policy()} (${mode.file})\n`);
    return 0;
  } finally {
    await store.close();
  }
}
