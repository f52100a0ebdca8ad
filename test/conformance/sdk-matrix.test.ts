// The SDK-level part of the conformance matrix (docs/compatibility.md), in `npm test`: each SDK
// client, unmodified, through the gateway to the local models and to a fake upstream of each
// protocol: text, stream, a tool round trip, a second turn with reasoning, the generations looked up.
// A cell fails with the first wrong thing of each case; a limit or known bug a driver declares is
// checked too.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { CASES, COLUMNS, runCell } from "./cases.ts";
import { SDK_DRIVERS } from "./sdk-drivers.ts";
import { startStage } from "./stage.ts";

let stage: Awaited<ReturnType<typeof startStage>>;
before(async () => {
  stage = await startStage();
});
after(() => stage?.close());

for (const driver of SDK_DRIVERS) {
  describe(driver.name, () => {
    for (const column of COLUMNS) {
      test(`× ${column}: ${CASES.join(", ")}`, async () => {
        const row = await runCell(stage, driver, column);
        const failed = CASES.flatMap((name) => {
          const outcome = row[name];
          // A skip is declared by the driver (a known gateway bug's case, checked to still fail).
          return outcome.status === "fail" ? [`${name}: ${outcome.reason}`] : [];
        });
        assert.deepEqual(failed, []);
      });
    }
  });
}
