// The messages and content-generation protocols take tool-call arguments as an object: whatever JSON
// text the IR holds becomes one, `{}` when it cannot.

import assert from "node:assert/strict";
import { test } from "node:test";
import { argumentsObject } from "../../../src/protocols/shared/tool-arguments.ts";

test("an object's JSON text is that object", () => {
  assert.deepEqual(argumentsObject('{"city":"Paris","days":[1,2]}'), { city: "Paris", days: [1, 2] });
});

test("empty, broken, array, scalar and null arguments are an empty object", () => {
  for (const text of ["", "  ", '{"city":', "[1]", "3", '"x"', "null"])
    assert.deepEqual(argumentsObject(text), {}, JSON.stringify(text));
});
