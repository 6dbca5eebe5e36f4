import * as os from "node:os";
import { redactUserinfo } from "../../api/redact-url.js";
import { parseArgs } from "node:util";
import { writeApiCredentials } from "../../config/api-credentials.js";
import { configDir } from "../../config/config-dir.js";
import type { CliIo } from "../io.js";

export const LOGIN_USAGE = `usage: comity login --url URL (--token TOKEN | --token-stdin)

Saves the coordination API's address and your token in the config folder
(api.json, readable by you only), for hooks whose host does not see your
shell's COMITY_API_URL and COMITY_TOKEN (a desktop app, say). Those
variables, when set, still win. --token-stdin reads the token from stdin:
  comity serve token create --team me | comity login --url http://127.0.0.1:7373 --token-stdin
`;

/** `comity login`: 0 saved, 2 bad arguments. */
export async function loginCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: { url: { type: "string" }, token: { type: "string" }, "token-stdin": { type: "boolean", default: false }, help: { type: "boolean", short: "h", default: false } },
  });
  if (values.help) {
    io.stdout.write(LOGIN_USAGE);
    return 0;
  }
  const fromStdin = values["token-stdin"] ? ((await io.readStdin?.()) ?? "").trim() : undefined;
  const token = values.token ?? fromStdin;
  if (positionals.length > 0 || values.url === undefined || token === undefined || (values.token !== undefined && values["token-stdin"])) {
    io.stderr.write(`comity login: give --url and one of --token or --token-stdin\n${LOGIN_USAGE}`);
    return 2;
  }
  const file = writeApiCredentials(configDir(io.env, io.env["HOME"] ?? os.homedir()), { url: values.url, token });
  if (values.token !== undefined) {
    io.stderr.write(
      "comity login: a token given with --token stays in your shell's history; next time pipe it in with --token-stdin:\n  comity serve token create --team me | comity login --url URL --token-stdin\n",
    );
  }
  io.stdout.write(`saved ${redactUserinfo(values.url)} and the token in ${file}\n`);
  return 0;
}
