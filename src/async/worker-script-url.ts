/**
 * The URL of a worker thread's script that sits beside the module starting it (`file`, e.g. `walk-worker.js`). The
 * tests run the TypeScript sources, which have no such script: from `src/FOLDER/x.ts` it is the build's
 * `dist/FOLDER/file`.
 */
export function workerScriptUrl(callerUrl: string, file: string): URL {
  if (!callerUrl.endsWith(".ts")) return new URL(`./${file}`, callerUrl);
  const folder =
    new URL(".", callerUrl).pathname
      .split("/")
      .filter((p) => p !== "")
      .at(-1) ?? "";
  return new URL(`../../dist/${folder}/${file}`, callerUrl);
}
