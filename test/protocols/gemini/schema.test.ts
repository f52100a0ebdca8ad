import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../../src/ir/errors.ts";
import { geminiSchemaToJsonSchema, jsonSchemaToGeminiSchema } from "../../../src/protocols/gemini/schema.ts";

describe("Gemini Schema → JSON Schema", () => {
  test("nested objects, arrays, enums and counts", () => {
    const schema = {
      type: "OBJECT",
      properties: {
        recipe: {
          type: "OBJECT",
          properties: {
            name: { type: "STRING", description: "Dish name", minLength: "1" },
            servings: { type: "INTEGER", format: "int32", minimum: 1 },
            tags: { type: "ARRAY", items: { type: "STRING", enum: ["vegan", "quick"] }, maxItems: "5" },
          },
          required: ["name"],
          propertyOrdering: ["name", "servings", "tags"],
        },
      },
      required: ["recipe"],
    };
    assert.deepEqual(geminiSchemaToJsonSchema(schema, "p"), {
      type: "object",
      properties: {
        recipe: {
          type: "object",
          properties: {
            name: { type: "string", description: "Dish name", minLength: 1 },
            servings: { type: "integer", minimum: 1 },
            tags: { type: "array", items: { type: "string", enum: ["vegan", "quick"] }, maxItems: 5 },
          },
          required: ["name"],
        },
      },
      required: ["recipe"],
    });
  });

  test("nullable becomes a null type (and a null enum value)", () => {
    assert.deepEqual(geminiSchemaToJsonSchema({ type: "STRING", nullable: true }, "p"), {
      type: ["string", "null"],
    });
    assert.deepEqual(geminiSchemaToJsonSchema({ type: "STRING", enum: ["a", "b"], nullable: true }, "p"), {
      type: ["string", "null"],
      enum: ["a", "b", null],
    });
  });

  test("anyOf (and oneOf, read as anyOf) convert each branch; nullable adds a null branch", () => {
    assert.deepEqual(
      geminiSchemaToJsonSchema({ anyOf: [{ type: "STRING" }, { type: "INTEGER" }], nullable: true }, "p"),
      { anyOf: [{ type: "string" }, { type: "integer" }, { type: "null" }] },
    );
    assert.deepEqual(geminiSchemaToJsonSchema({ oneOf: [{ type: "BOOLEAN" }] }, "p"), {
      anyOf: [{ type: "boolean" }],
    });
  });

  test("integer enums written as strings become numbers; format enum and example are translated", () => {
    assert.deepEqual(
      geminiSchemaToJsonSchema({ type: "INTEGER", format: "enum", enum: ["101", "201"], example: 101 }, "p"),
      { type: "integer", enum: [101, 201], examples: [101] },
    );
  });

  test("lowercase types and snake_case keywords are accepted", () => {
    assert.deepEqual(
      geminiSchemaToJsonSchema({ type: "array", min_items: 2, items: { type: "number" } }, "p"),
      {
        type: "array",
        minItems: 2,
        items: { type: "number" },
      },
    );
  });

  test("an unknown type is a 400 naming the nested field", () => {
    assert.throws(
      () =>
        geminiSchemaToJsonSchema(
          { type: "OBJECT", properties: { a: { type: "TEXT" } } },
          "tools[0].parameters",
        ),
      (error: unknown) =>
        error instanceof GatewayError &&
        error.status === 400 &&
        error.param === "tools[0].parameters.properties.a.type",
    );
  });

  test("a schema that is not an object is a 400", () => {
    assert.throws(
      () => geminiSchemaToJsonSchema({ type: "ARRAY", items: "STRING" }, "p"),
      (error: unknown) => error instanceof GatewayError && error.param === "p.items",
    );
  });
});

describe("JSON Schema → Gemini Schema", () => {
  test("nested objects, arrays, enums convert to uppercase types", () => {
    const schema = {
      type: "object",
      properties: {
        city: { type: "string", description: "City name" },
        when: { type: "string", format: "date-time" },
        days: { type: "integer", minimum: 1, maximum: 10 },
        units: { type: "string", enum: ["celsius", "fahrenheit"] },
        stops: { type: "array", items: { type: "object", properties: { name: { type: "string" } } } },
      },
      required: ["city"],
    };
    assert.deepEqual(jsonSchemaToGeminiSchema(schema), {
      type: "OBJECT",
      properties: {
        city: { type: "STRING", description: "City name" },
        when: { type: "STRING", format: "date-time" },
        days: { type: "INTEGER", minimum: 1, maximum: 10 },
        units: { type: "STRING", enum: ["celsius", "fahrenheit"] },
        stops: { type: "ARRAY", items: { type: "OBJECT", properties: { name: { type: "STRING" } } } },
      },
      required: ["city"],
    });
  });

  test("type [t, null] and anyOf [X, {type: null}] become nullable", () => {
    assert.deepEqual(jsonSchemaToGeminiSchema({ type: ["string", "null"] }), {
      type: "STRING",
      nullable: true,
    });
    assert.deepEqual(
      jsonSchemaToGeminiSchema({ anyOf: [{ type: "array", items: { type: "string" } }, { type: "null" }] }),
      {
        nullable: true,
        type: "ARRAY",
        items: { type: "STRING" },
      },
    );
  });

  test("anyOf with several branches stays anyOf", () => {
    assert.deepEqual(jsonSchemaToGeminiSchema({ anyOf: [{ type: "string" }, { type: "number" }] }), {
      anyOf: [{ type: "STRING" }, { type: "NUMBER" }],
    });
  });

  for (const [keyword, schema] of [
    [
      "$schema",
      {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { a: { type: "string" } },
      },
    ],
    [
      "additionalProperties",
      { type: "object", properties: { a: { type: "string" } }, additionalProperties: false },
    ],
    ["const", { type: "object", properties: { kind: { const: "x" } } }],
    [
      "propertyNames",
      { type: "object", properties: { a: { type: "string" } }, propertyNames: { pattern: "^a" } },
    ],
    ["$ref", { type: "object", properties: { a: { $ref: "#/$defs/A" } }, $defs: { A: { type: "string" } } }],
    ["oneOf", { oneOf: [{ type: "string" }, { type: "number" }] }],
    ["numeric enum", { type: "integer", enum: [1, 2] }],
    ["empty object", { type: "object", properties: { meta: { type: "object" } } }],
    ["tuple items", { type: "array", items: [{ type: "string" }] }],
    ["format uri", { type: "object", properties: { link: { type: "string", format: "uri" } } }],
  ] as const) {
    test(`${keyword} has no Schema form (→ undefined, sent as JSON Schema)`, () => {
      assert.equal(jsonSchemaToGeminiSchema(schema), undefined);
    });
  }

  test("Schema → JSON Schema → Schema returns the original Schema", () => {
    const schema = {
      type: "OBJECT",
      properties: {
        title: { type: "STRING", nullable: true },
        score: { type: "NUMBER", minimum: 0 },
        labels: { type: "ARRAY", items: { type: "STRING", enum: ["a", "b"] } },
      },
      required: ["score"],
    };
    const back = jsonSchemaToGeminiSchema(geminiSchemaToJsonSchema(schema, "p"));
    assert.deepEqual(back, schema);
  });
});
