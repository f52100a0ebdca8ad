import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../../src/ir/errors.ts";
import { checkJsonSchema, renameSchemaTypes } from "../../../src/protocols/shared/json-schema.ts";
import { CLAUDE_CODE_TOOLS } from "../../e2e/traps/claude-code-tools.ts";

function refuses(schema: unknown, param: string) {
  assert.throws(
    () => checkJsonSchema(schema, "tools[0].input_schema"),
    (err: unknown) => {
      assert.ok(err instanceof GatewayError, `expected a GatewayError, got ${err}`);
      assert.equal(err.status, 400);
      assert.equal(err.param, param);
      assert.ok(err.message.startsWith(`${param}: `), err.message);
      return true;
    },
  );
}

/** What Codex sends: strict-mode schemas, nullable fields as type arrays, nested objects. */
const CODEX_SHELL = {
  type: "object",
  properties: {
    command: { type: "array", items: { type: "string" }, description: "The command to execute" },
    workdir: { type: ["string", "null"], description: "The working directory" },
    timeout_ms: { type: ["number", "null"] },
    with_escalated_permissions: { type: ["boolean", "null"] },
    justification: { type: ["string", "null"] },
  },
  required: ["command", "workdir", "timeout_ms", "with_escalated_permissions", "justification"],
  additionalProperties: false,
};

/** What Gemini CLI sends as parametersJsonSchema. */
const GEMINI_CLI_READ_MANY = {
  type: "object",
  properties: {
    paths: { type: "array", items: { type: "string", minLength: 1 }, minItems: 1 },
    include: { type: "array", items: { type: "string" }, default: [] },
    recursive: { type: "boolean", default: true },
    file_filtering_options: {
      type: "object",
      properties: { respect_git_ignore: { type: "boolean" } },
    },
  },
  required: ["paths"],
};

/** What zod-to-json-schema and MCP servers write: definitions, $ref, anyOf/oneOf/allOf, const, booleans. */
const GENERATED = {
  $schema: "http://json-schema.org/draft-07/schema#",
  $id: "https://example.com/tool",
  type: "object",
  properties: {
    target: { $ref: "#/definitions/target" },
    mode: { oneOf: [{ const: "a" }, { const: "b" }] },
    limits: {
      allOf: [{ type: "object" }, { properties: { max: { type: "integer", exclusiveMinimum: 0 } } }],
    },
    old: { type: "number", minimum: 0, exclusiveMinimum: true },
    anything: true,
    nothing: false,
    extra: {
      type: "object",
      additionalProperties: { type: "string" },
      propertyNames: { pattern: "^[a-z]+$" },
    },
    pairs: { type: "array", items: [{ type: "string" }, { type: "number" }], additionalItems: false },
    tuple: { type: "array", prefixItems: [{ type: "string" }], items: false },
    when: { type: "string", format: "date-time" },
    color: { enum: ["red", 1, null] },
    maybe: { anyOf: [{ type: "string" }, { type: "null" }], default: null },
    // biome-ignore lint/suspicious/noThenProperty: `then` is a JSON Schema keyword here.
    conditional: { if: { type: "string" }, then: { minLength: 1 }, else: { not: { type: "null" } } },
    vendor: { type: "string", "x-order": 3, nullable: true, examples: ["a"] },
    legacy: { type: "string", required: true },
  },
  patternProperties: { "^x-": { type: "string" } },
  dependencies: { a: ["b"] },
  definitions: { target: { type: "object", properties: { id: { type: "string" } } } },
  $defs: { unused: {} },
  required: ["target"],
  additionalProperties: false,
};

describe("checkJsonSchema: the schemas real clients send pass", () => {
  test("all 25 tools of a Claude Code session", () => {
    for (const tool of CLAUDE_CODE_TOOLS) checkJsonSchema(tool.input_schema, tool.name);
  });

  test("Codex, Gemini CLI, and generated draft-07 schemas", () => {
    checkJsonSchema(CODEX_SHELL, "codex");
    checkJsonSchema(GEMINI_CLI_READ_MANY, "gemini-cli");
    checkJsonSchema(GENERATED, "generated");
    checkJsonSchema({}, "empty");
    checkJsonSchema({ type: "object" }, "bare object");
  });
});

describe("checkJsonSchema: a schema broken in shape is a 400 naming the path", () => {
  test("an empty type array (a type array of valid names is fine)", () => {
    refuses(
      { type: "object", properties: { city: { type: [] } } },
      "tools[0].input_schema.properties.city.type",
    );
    checkJsonSchema({ type: "object", properties: { city: { type: ["string", "null"] } } }, "ok");
  });

  test("a type that names no JSON type, or is not a name", () => {
    refuses({ properties: { city: { type: "text" } } }, "tools[0].input_schema.properties.city.type");
    refuses({ properties: { city: { type: 5 } } }, "tools[0].input_schema.properties.city.type");
    refuses(
      { properties: { city: { type: ["string", 1] } } },
      "tools[0].input_schema.properties.city.type[1]",
    );
  });

  test("a property that is a string instead of a schema", () => {
    refuses({ type: "object", properties: { city: "{}" } }, "tools[0].input_schema.properties.city");
    refuses({ type: "object", properties: { city: null } }, "tools[0].input_schema.properties.city");
  });

  test("keywords that hold schemas holding something else", () => {
    refuses({ properties: [] }, "tools[0].input_schema.properties");
    refuses({ items: "string" }, "tools[0].input_schema.items");
    refuses({ items: [{ type: "string" }, 3] }, "tools[0].input_schema.items[1]");
    refuses({ anyOf: { type: "string" } }, "tools[0].input_schema.anyOf");
    refuses({ oneOf: [{}, "x"] }, "tools[0].input_schema.oneOf[1]");
    refuses({ additionalProperties: "no" }, "tools[0].input_schema.additionalProperties");
    refuses({ $defs: { a: 1 } }, "tools[0].input_schema.$defs.a");
    refuses({ not: [] }, "tools[0].input_schema.not");
  });

  test("required, enum and $ref of the wrong type", () => {
    refuses({ required: "city" }, "tools[0].input_schema.required");
    refuses({ required: [1] }, "tools[0].input_schema.required");
    refuses({ properties: { c: { enum: "a" } } }, "tools[0].input_schema.properties.c.enum");
    refuses({ properties: { c: { $ref: 5 } } }, "tools[0].input_schema.properties.c.$ref");
  });

  test("the root must be an object; a schema nested past any real one is refused, not walked", () => {
    refuses("{}", "tools[0].input_schema");
    refuses(true, "tools[0].input_schema");
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 200; i++) deep = { type: "object", properties: { a: deep } };
    assert.throws(
      () => checkJsonSchema(deep, "p"),
      /^GatewayError: p(\.properties\.a)+: this schema in the body is nested too deeply/,
    );
  });
});

describe("renameSchemaTypes", () => {
  const lower = (name: string) => (name === "DROP" ? undefined : name.toLowerCase());

  test("renames type names in every schema below, and only there", () => {
    const schema = {
      type: "OBJECT",
      properties: {
        type: { type: "STRING", enum: ["OBJECT"], default: "STRING" },
        list: { type: ["ARRAY", "NULL"], items: { type: "INTEGER" } },
        tuple: { items: [{ type: "NUMBER" }, true] },
        either: { anyOf: [{ type: "BOOLEAN" }, { type: "DROP", const: { type: "OBJECT" } }] },
      },
      additionalProperties: { type: "STRING" },
      $defs: { node: { type: "OBJECT" } },
    };
    assert.deepEqual(renameSchemaTypes(schema, lower), {
      type: "object",
      properties: {
        type: { type: "string", enum: ["OBJECT"], default: "STRING" },
        list: { type: ["array", "null"], items: { type: "integer" } },
        tuple: { items: [{ type: "number" }, true] },
        either: { anyOf: [{ type: "boolean" }, { const: { type: "OBJECT" } }] },
      },
      additionalProperties: { type: "string" },
      $defs: { node: { type: "object" } },
    });
    assert.equal(schema.type, "OBJECT", "the schema given is not changed");
  });

  test("what is not a schema is given back as it is, for checkJsonSchema to refuse", () => {
    assert.equal(renameSchemaTypes("OBJECT", lower), "OBJECT");
    assert.deepEqual(renameSchemaTypes({ properties: "{}" }, lower), { properties: "{}" });
  });
});
