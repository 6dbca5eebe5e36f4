// The snapshot oracles (snapshot-oracle-suite.ts) on the status-index engine.
import { snapshotOracleSuite } from "./snapshot-oracle-suite.js";

snapshotOracleSuite("status-index", undefined, 0.5);
