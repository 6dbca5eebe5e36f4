// The snapshot oracles (snapshot-oracle-suite.ts) on the walk engine.
import { snapshotOracleSuite } from "./snapshot-oracle-suite.js";

snapshotOracleSuite("walk", undefined, 0.5);
