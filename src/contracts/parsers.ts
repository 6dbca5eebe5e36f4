import { createRequire } from "node:module";

/**
 * The contract parsers, each loaded at the first document of its kind: most files a hook reads are no contract, and
 * loading them all costs more than reading one (graphql-js alone ~100 ms of a cold process). Required, not imported,
 * so that importing this folder loads none of them.
 */
const require = createRequire(import.meta.url);

let graphqlModule: typeof import("graphql") | null = null;
export const graphqlLib = (): typeof import("graphql") => (graphqlModule ??= require("graphql") as typeof import("graphql"));

let protobufModule: typeof import("protobufjs") | null = null;
export const protobufLib = (): typeof import("protobufjs") => (protobufModule ??= require("protobufjs") as typeof import("protobufjs"));

let yamlModule: typeof import("js-yaml") | null = null;
export const yamlLib = (): typeof import("js-yaml") => (yamlModule ??= require("js-yaml") as typeof import("js-yaml"));
