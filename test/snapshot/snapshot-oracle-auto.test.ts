// The snapshot oracles (snapshot-oracle-suite.ts) on the auto engine.
import { lineEndingExamples, snapshotOracleSuite } from "./snapshot-oracle-suite.js";

snapshotOracleSuite("auto");
lineEndingExamples();
