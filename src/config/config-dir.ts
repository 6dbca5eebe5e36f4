import configDirModule from "./config-dir-cjs.cjs";

/** Comity's config folder (defined in CommonJS for the hook's thin path, in `config-dir-cjs.cts`). */
export const configDir: (env: Readonly<Record<string, string | undefined>>, homeDir: string) => string = configDirModule.configDir;
