// Thinking settings a content-generation request may not ask of its model (they were accepted):
// a thinkingConfig on a model that does not think, a thinkingBudget outside the model's range.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../../src/ir/errors.ts";
import { gemini } from "../../../src/protocols/gemini/index.ts";
import type { ModelTraits } from "../../../src/protocols/types.ts";

const hello = [{ role: "user", parts: [{ text: "Hello" }] }];

function model(id: string, reasoning = true, upstream?: string): ModelTraits {
  return { id, reasoning, endpoints: [{ model: upstream ?? id.split("/")[1] }] };
}

/** Decodes a body with this thinkingConfig and checks it against the model. */
function check(thinkingConfig: unknown, traits: ModelTraits): void {
  const request = gemini.decodeRequest(
    { contents: hello, generationConfig: { thinkingConfig } },
    { headers: {}, pathModel: traits.id },
  );
  gemini.checkModel?.(request, traits);
}

function refuses(thinkingConfig: unknown, traits: ModelTraits, param: string): void {
  assert.throws(
    () => check(thinkingConfig, traits),
    (err: unknown) => {
      assert.ok(err instanceof GatewayError, `expected a GatewayError, got ${err}`);
      assert.equal(err.status, 400);
      assert.equal(err.param, param);
      assert.ok(err.message.startsWith(`${param}: `), err.message);
      return true;
    },
  );
}

describe("a thinkingConfig on a model that does not think is a 400", () => {
  for (const config of [{ thinkingBudget: 1024 }, { thinkingBudget: 0 }, { includeThoughts: true }, {}]) {
    test(JSON.stringify(config), () => {
      refuses(config, model("local/echo-1", false), "generationConfig.thinkingConfig");
    });
  }

  test("no thinkingConfig: nothing to refuse", () => {
    const request = gemini.decodeRequest({ contents: hello }, { headers: {}, pathModel: "local/echo-1" });
    gemini.checkModel?.(request, model("local/echo-1", false));
  });
});

describe("a thinkingBudget outside every tier is a 400 before the model is known", () => {
  for (const budget of [100000, 32769, -2]) {
    test(String(budget), () => {
      assert.throws(
        () =>
          gemini.decodeRequest(
            { contents: hello, generationConfig: { thinkingConfig: { thinkingBudget: budget } } },
            { headers: {}, pathModel: "x" },
          ),
        (err: unknown) =>
          err instanceof GatewayError && err.param === "generationConfig.thinkingConfig.thinkingBudget",
      );
    });
  }
});

describe("a thinkingBudget outside the model's tier is a 400; -1 and 0 are special", () => {
  const at = "generationConfig.thinkingConfig.thinkingBudget";
  const pro = model("google/gemini-2.5-pro");
  const flash = model("google/gemini-2.5-flash");
  const lite = model("google/gemini-2.5-flash-lite");

  test("Pro: 128 to 32768, -1; thinking cannot be switched off", () => {
    for (const ok of [128, 32768, -1]) check({ thinkingBudget: ok }, pro);
    for (const bad of [127, 1, 0]) refuses({ thinkingBudget: bad }, pro, at);
  });

  test("Flash: 0 to 24576, -1", () => {
    for (const ok of [0, 1, 24576, -1]) check({ thinkingBudget: ok }, flash);
    refuses({ thinkingBudget: 24577 }, flash, at);
  });

  test("Flash-Lite: 512 to 24576, 0 (off), -1", () => {
    for (const ok of [0, 512, 24576, -1]) check({ thinkingBudget: ok }, lite);
    for (const bad of [511, 1, 24577]) refuses({ thinkingBudget: bad }, lite, at);
  });

  test("the tier comes from the upstream name when the catalog id does not say it", () => {
    refuses({ thinkingBudget: 100 }, model("acme/fast", true, "gemini-2.5-flash-lite"), at);
  });

  test("a model of no known tier takes what some tier takes", () => {
    for (const ok of [0, 1, 32768, -1]) check({ thinkingBudget: ok }, model("local/think-1"));
    check({ thinkingLevel: "HIGH" }, model("google/gemini-3-flash-preview"));
  });
});
