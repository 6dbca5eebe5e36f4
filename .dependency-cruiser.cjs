/** The layering of src/, checked in CI (npm run lint): see docs/architecture.md. */
module.exports = {
  forbidden: [
    { name: "no-circular", severity: "error", comment: "A cycle makes two modules one: break it by moving the shared piece down.", from: {}, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"], extensions: [".ts", ".js"] },
  },
};
