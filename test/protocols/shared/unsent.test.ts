// The one collector of what an attempt's upstream did not get (src/protocols/shared/dropped-fields.ts):
// whoever leaves a field out adds to it, and `x-switchyard-ignored` reads it once, in one order.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Unsent } from "../../../src/protocols/shared/dropped-fields.ts";

test("the client's paths come first as met, then the vocabulary's names in its order, then other refused members", () => {
  const unsent = new Unsent(["metadata", "service_tier"]);
  unsent.add("seed");
  unsent.add("top_k", false);
  unsent.addFields(["messages[1].name", "temperature"]);
  unsent.addPaths(["logit_bias"]);
  assert.deepEqual(unsent.list(), [
    "metadata",
    "service_tier",
    "logit_bias",
    "temperature",
    "seed",
    "messages[1].name",
  ]);
});

test("each name once, whichever way it came, and nothing for an attempt that left nothing out", () => {
  assert.deepEqual(new Unsent().list(), []);
  const unsent = new Unsent(["seed"]);
  unsent.add("seed");
  unsent.addFields(["seed"]);
  unsent.addPaths(["seed"]);
  assert.deepEqual(unsent.list(), ["seed"]);
});
