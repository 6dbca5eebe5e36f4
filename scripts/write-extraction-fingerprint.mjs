#!/usr/bin/env node
// Part of `npm run build`: writes the fingerprint of the symbol extraction's sources beside the built module
// (dist/symbols/extraction-fingerprint.json), which is what the caches of extracted symbols are keyed by. An installed
// package has no sources to hash; a build in a checkout has them now.
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { computeExtractionFingerprint, FINGERPRINT_FILE } = await import(path.join(root, "dist", "symbols", "extractor-version.js"));
const fingerprint = computeExtractionFingerprint(root);
fs.writeFileSync(path.join(root, "dist", "symbols", FINGERPRINT_FILE), `${JSON.stringify({ fingerprint })}\n`);
