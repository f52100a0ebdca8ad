// JSON mode (`response_format: {type: "json_object"}`) for an Anthropic-protocol upstream.
//
// The messages protocol has no "any JSON object" mode: `output_config.format` needs a schema whose
// every object sets `additionalProperties: false`, prefilling `{` is refused by recent models, and a
// system instruction guarantees nothing. So the request offers one reserved tool whose input is the
// answer (forced when nothing else competes with it), and the decoders turn a call of that tool back
// into a text block holding the JSON, with the turn ending as a normal stop. The name is reserved so
// the decoders need no memory of the request.

export const JSON_TOOL_NAME = "switchyard_json_response";

export const JSON_TOOL = {
  name: JSON_TOOL_NAME,
  description: "Give your complete answer as a JSON object by calling this tool; its input is the answer.",
  input_schema: { type: "object" as const },
};

export function isJsonTool(name: unknown): boolean {
  return name === JSON_TOOL_NAME;
}
