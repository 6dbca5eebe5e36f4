/**
 * The layering of src/, checked in CI (npm run lint; see docs/architecture.md). A folder may import from its own
 * layer and the layers below it, never from a layer above: the engine does not know its front ends.
 */
const LAYERS = [
  ["errors", "async", "version.ts"],
  ["parse", "packages"],
  ["fs", "shell", "api"],
  ["git", "store"],
  ["remotes", "config", "init", "workspace", "snapshot", "state"],
  ["symbols", "contracts", "briefing", "coordination"],
  ["analyze", "dashboard"],
  ["hook", "serve", "doctor", "daemon", "mcp"],
  ["cli"],
  ["index.ts"],
];

const pattern = (names) => `^src/(${names.map((n) => n.replace(".", "\\.")).join("|")})($|/)`;

const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-${i}-imports-upward`,
  severity: "error",
  comment: `${layer.join(", ")} may not import from a layer above it: move the shared piece down, or pass it in as a parameter.`,
  from: { path: pattern(layer) },
  to: { path: pattern(LAYERS.slice(i + 1).flat()) },
}));

module.exports = {
  forbidden: [
    { name: "no-circular", severity: "error", comment: "A cycle makes two modules one: break it by moving the shared piece down.", from: {}, to: { circular: true } },
    {
      name: "every-folder-has-a-layer",
      severity: "error",
      comment: "A new folder under src/ gets its place in LAYERS.",
      from: { path: "^src/", pathNot: pattern(LAYERS.flat()) },
      to: {},
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"], extensions: [".ts", ".js"] },
  },
};
