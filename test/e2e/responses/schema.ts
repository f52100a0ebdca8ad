// The Open Responses specification's published schema (test/fixtures/open-responses/), compiled once:
// what a response object, a stream event and a compacted window must be.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";

const spec = JSON.parse(
  readFileSync(new URL("../../fixtures/open-responses/openapi.json", import.meta.url), "utf8"),
);
// OpenAPI's `discriminator` and the spec's own keywords are annotations here: strict mode off.
const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema(spec, "spec");

const SCHEMAS = {
  ResponseResource: ajv.getSchema("spec#/components/schemas/ResponseResource")!,
  CompactResource: ajv.getSchema("spec#/components/schemas/CompactResource")!,
  // The `text/event-stream` union of `POST /responses`.
  StreamEvent: ajv.compile({
    $ref: "spec#/paths/~1responses/post/responses/200/content/text~1event-stream/schema",
  }),
} satisfies Record<string, ValidateFunction>;

/** Fails naming every violation when `value` is not a valid `name`. */
export function assertSchema(name: keyof typeof SCHEMAS, value: unknown, what: string = name): void {
  const validate = SCHEMAS[name];
  assert.ok(
    validate(value),
    `${what}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 600)}`,
  );
}
