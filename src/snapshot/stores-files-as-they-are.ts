import * as path from "node:path";
import { nodeSyncFs, readTextOrNull } from "../fs/sync-fs.js";
import { configBool, configValue, type GitConfigEntry } from "../git/parse-git-config.js";
import type { Repo } from "../workspace/repo.js";

/**
 * The repo's config lets git store files byte for byte: no eol conversion,
 * no attributes file outside the tree, SHA-1 objects. (Attributes inside the
 * tree are the caller's to check.)
 */
export function storesFilesAsTheyAre(config: readonly GitConfigEntry[], repo: Repo): boolean {
  const format = (configValue(config, "extensions", "objectformat") ?? "sha1").toLowerCase();
  // autocrlf unset, or explicitly off: anything else (true, input) converts line endings.
  const autocrlfOff = configValue(config, "core", "autocrlf") === undefined || configBool(config, "core", "autocrlf") === false;
  if (format !== "sha1" || !autocrlfOff) return false;
  if (configValue(config, "core", "attributesfile") !== undefined) return false;
  return repo.commonDir === null || readTextOrNull(nodeSyncFs, path.join(repo.commonDir, "info", "attributes")) === null;
}
