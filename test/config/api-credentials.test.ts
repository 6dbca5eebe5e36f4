import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { credentialsFile, readApiCredentials, resolveApi, writeApiCredentials } from "../../src/config/api-credentials.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "comity-creds-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("API credentials", () => {
  it("prefers each variable over the saved value, one by one", () => {
    expect(resolveApi({}, dir)).toEqual({ url: "", token: "", urlFrom: "none", tokenFrom: "none" });
    writeApiCredentials(dir, { url: "http://127.0.0.1:7373", token: "cmt_saved" });
    expect(resolveApi({}, dir)).toEqual({ url: "http://127.0.0.1:7373", token: "cmt_saved", urlFrom: "file", tokenFrom: "file" });
    expect(resolveApi({ COMITY_TOKEN: "cmt_env" }, dir)).toEqual({ url: "http://127.0.0.1:7373", token: "cmt_env", urlFrom: "file", tokenFrom: "env" });
    expect(resolveApi({ COMITY_API_URL: "https://team.example" }, dir)).toEqual({ url: "https://team.example", token: "cmt_saved", urlFrom: "env", tokenFrom: "file" });
    expect(resolveApi({ COMITY_API_URL: "https://team.example", COMITY_TOKEN: "cmt_env" }, dir)).toEqual({ url: "https://team.example", token: "cmt_env", urlFrom: "env", tokenFrom: "env" });
  });

  it("saves for its owner only, rejects what no hook could use, and reads a broken file as none", () => {
    const file = writeApiCredentials(dir, { url: "https://team.example/base", token: "cmt_x" });
    expect(file).toBe(credentialsFile(dir));
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(() => writeApiCredentials(dir, { url: "not a url", token: "t" })).toThrow(/not a URL/);
    expect(() => writeApiCredentials(dir, { url: "file:///etc", token: "t" })).toThrow(/http/);
    expect(() => writeApiCredentials(dir, { url: "http://x", token: "two words" })).toThrow(/token/);
    fs.writeFileSync(file, "{ nope");
    expect(readApiCredentials(dir)).toBeNull();
  });
});
