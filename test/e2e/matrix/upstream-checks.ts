// What each upstream must have RECEIVED, field by field, in its own wire format. Written from the
// providers' API references and the fixtures, never from src/: a route passes only if the gateway
// put the client's meaning into the upstream's native fields.

import assert from "node:assert/strict";
import type { RecordedRequest } from "../../fakes/index.ts";
import { PAYG_KEY } from "../../support/gateway.ts";
import {
  ASSISTANT_1,
  CALL_SIGNATURE,
  IMAGE_PROMPT,
  IMAGE_URL,
  JSON_SCHEMA,
  PNG_BASE64,
  STOP,
  SYSTEM,
  TEMPERATURE,
  THINKING_SIGNATURE,
  THINKING_TEXT,
  TIME_TOOL,
  USER_1,
  USER_2,
  WEATHER_TOOL,
} from "./fixtures.ts";
import { MAX_OUTPUT, UPSTREAM_KEY, UPSTREAM_MODEL, type Upstream } from "./harness.ts";

export interface Route {
  /** The client's protocol, named like the upstream protocols. */
  client: Upstream;
  upstream: Upstream;
  stream: boolean;
}

/** Same protocol in and out: the body is relayed, not translated. */
export function relayed(route: Route): boolean {
  return route.client === route.upstream;
}

export function routeName(route: Route): string {
  return `${route.client} client → ${route.upstream} upstream${route.stream ? ", streamed" : ""}`;
}

type Json = Record<string, any>;

/**
 * The body members each request's checks have asserted; `checkNothingElse` then proves the upstream
 * got no member nobody expected (docs/architecture.md §10: a field of one protocol leaking to another's
 * upstream). Gemini's generationConfig members are tracked as `generationConfig.<name>`.
 */
const claimed = new WeakMap<RecordedRequest, Set<string>>();

function claim(req: RecordedRequest, ...members: string[]): void {
  const set = claimed.get(req) ?? new Set<string>();
  for (const member of members) set.add(member);
  claimed.set(req, set);
}

/** Every member of the upstream body (and of Gemini's generationConfig) was asserted by a check. */
export function checkNothingElse(req: RecordedRequest): void {
  const body: Json = req.body;
  const set = claimed.get(req) ?? new Set<string>();
  const members = Object.keys(body).flatMap((key) =>
    key === "generationConfig"
      ? Object.keys(body.generationConfig).map((k) => `generationConfig.${k}`)
      : [key],
  );
  assert.deepEqual(
    members.filter((m) => !set.has(m)),
    [],
    `unexpected members in the upstream body: ${JSON.stringify(body)}`,
  );
}

/**
 * Model name, path, credentials and streaming flags. `maxTokens` is what the client asked for
 * (undefined when it gave no limit).
 */
export function checkEnvelope(req: RecordedRequest, route: Route, maxTokens: number | undefined): void {
  const body: Json = req.body;
  assert.equal(req.method, "POST");
  for (const [name, value] of Object.entries(req.headers))
    assert.ok(
      !String(value).includes(PAYG_KEY),
      `the client's key must not reach the upstream (header ${name})`,
    );
  switch (route.upstream) {
    case "openai":
      assert.equal(req.pathname, "/v1/chat/completions");
      assert.equal(req.headers.authorization, `Bearer ${UPSTREAM_KEY.openai}`);
      assert.equal(body.model, UPSTREAM_MODEL.openai);
      if (route.stream) {
        assert.equal(body.stream, true);
        assert.deepEqual(
          body.stream_options,
          { include_usage: true },
          "a streamed chat upstream always gets include_usage",
        );
      } else {
        assert.ok(body.stream === undefined || body.stream === false, `stream: ${body.stream}`);
        assert.equal(body.stream_options, undefined);
      }
      assert.equal(body.max_completion_tokens, maxTokens);
      assert.equal(body.max_tokens, undefined);
      claim(req, "model", "stream", "stream_options", "max_completion_tokens");
      return;
    case "anthropic":
      assert.equal(req.pathname, "/v1/messages");
      assert.equal(req.headers["x-api-key"], UPSTREAM_KEY.anthropic);
      assert.equal(req.headers["anthropic-version"], "2023-06-01");
      assert.equal(body.model, UPSTREAM_MODEL.anthropic);
      assert.equal(body.max_tokens, maxTokens ?? MAX_OUTPUT, "max_tokens from the client, else the catalog");
      if (route.stream) assert.equal(body.stream, true);
      else assert.ok(body.stream === undefined || body.stream === false, `stream: ${body.stream}`);
      claim(req, "model", "max_tokens", "stream");
      return;
    case "gemini": {
      const method = route.stream ? "streamGenerateContent" : "generateContent";
      assert.equal(req.pathname, `/v1beta/models/${UPSTREAM_MODEL.gemini}:${method}`);
      assert.equal(req.query.get("alt"), route.stream ? "sse" : null);
      assert.equal(req.headers["x-goog-api-key"], UPSTREAM_KEY.gemini);
      assert.equal(body.model, undefined, "Gemini takes the model in the path");
      // A relayed body is the client's own; a translated one carries the catalog limit when the client gave
      // none.
      const expected = maxTokens ?? (relayed(route) ? undefined : MAX_OUTPUT);
      assert.equal(body.generationConfig?.maxOutputTokens, expected);
      claim(req, "generationConfig.maxOutputTokens");
      return;
    }
    case "openai-responses": {
      assert.equal(req.pathname, "/v1/responses");
      assert.equal(req.headers.authorization, `Bearer ${UPSTREAM_KEY["openai-responses"]}`);
      assert.equal(body.model, UPSTREAM_MODEL["openai-responses"]);
      if (route.stream) assert.equal(body.stream, true);
      else assert.ok(body.stream === undefined || body.stream === false, `stream: ${body.stream}`);
      // The gateway keeps the state itself and asks the upstream to keep nothing (a relay sends the
      // client's own body, whose `store: false` says the same).
      assert.equal(body.store, false);
      // OpenAI takes no limit below 16: a translation raises a smaller one; a relay sends the client's.
      const expected = maxTokens === undefined || relayed(route) ? maxTokens : Math.max(maxTokens, 16);
      assert.equal(body.max_output_tokens, expected);
      claim(req, "model", "stream", "store", "max_output_tokens");
      // Every matrix model reasons: a translation asks for its reasoning's encrypted content, asked
      // for or not, so that the next turn can send it back.
      if (!relayed(route)) {
        assert.ok(body.include?.includes("reasoning.encrypted_content"), `include: ${body.include}`);
        claim(req, "include");
      }
      return;
    }
  }
}

/** Scenario 1: system prompt, then user / assistant / user, temperature. */
export function checkMultiTurn(req: RecordedRequest, route: Route): void {
  const body: Json = req.body;
  switch (route.upstream) {
    case "openai":
      assert.deepEqual(body.messages, [
        { role: "system", content: SYSTEM },
        { role: "user", content: USER_1 },
        { role: "assistant", content: ASSISTANT_1 },
        { role: "user", content: USER_2 },
      ]);
      assert.equal(body.temperature, TEMPERATURE);
      assert.equal(body.tools, undefined);
      claim(req, "messages", "temperature");
      return;
    case "anthropic":
      assert.deepEqual(body.system, [{ type: "text", text: SYSTEM }]);
      assert.deepEqual(body.messages, [
        { role: "user", content: [{ type: "text", text: USER_1 }] },
        { role: "assistant", content: [{ type: "text", text: ASSISTANT_1 }] },
        { role: "user", content: [{ type: "text", text: USER_2 }] },
      ]);
      assert.equal(body.temperature, TEMPERATURE);
      assert.equal(body.tools, undefined);
      claim(req, "system", "messages", "temperature");
      return;
    case "gemini":
      // @google/genai sends systemInstruction with role "user"; a relay keeps it, a translation has none.
      assert.deepEqual(body.systemInstruction, {
        parts: [{ text: SYSTEM }],
        ...(relayed(route) ? { role: "user" } : {}),
      });
      assert.deepEqual(body.contents, [
        { role: "user", parts: [{ text: USER_1 }] },
        { role: "model", parts: [{ text: ASSISTANT_1 }] },
        { role: "user", parts: [{ text: USER_2 }] },
      ]);
      assert.equal(body.generationConfig.temperature, TEMPERATURE);
      assert.equal(body.tools, undefined);
      claim(req, "systemInstruction", "contents", "generationConfig.temperature");
      return;
    case "openai-responses":
      assert.equal(body.instructions, SYSTEM);
      assert.deepEqual(body.input, [
        responsesMessage("user", USER_1),
        responsesMessage("assistant", ASSISTANT_1),
        responsesMessage("user", USER_2),
      ]);
      assert.equal(body.temperature, TEMPERATURE);
      assert.equal(body.tools, undefined);
      claim(req, "instructions", "input", "temperature");
      return;
  }
}

/** A Responses API message item as the gateway writes it (and the matrix's Responses client sends it). */
export function responsesMessage(role: "user" | "assistant", text: string): Json {
  return {
    type: "message",
    role,
    content: [{ type: role === "user" ? "input_text" : "output_text", text }],
  };
}

/** A conversation of one user prompt. */
export function checkPrompt(req: RecordedRequest, route: Route, prompt: string): void {
  const body: Json = req.body;
  switch (route.upstream) {
    case "openai":
      assert.deepEqual(body.messages, [{ role: "user", content: prompt }]);
      claim(req, "messages");
      return;
    case "anthropic":
      assert.deepEqual(body.messages, [{ role: "user", content: [{ type: "text", text: prompt }] }]);
      claim(req, "messages");
      return;
    case "gemini":
      assert.deepEqual(body.contents, [{ role: "user", parts: [{ text: prompt }] }]);
      claim(req, "contents");
      return;
    case "openai-responses":
      assert.deepEqual(body.input, [responsesMessage("user", prompt)]);
      claim(req, "input");
      return;
  }
}

/** Scenario 2: a base64 PNG and an image URL beside the prompt. */
export function checkImages(req: RecordedRequest, route: Route): void {
  const body: Json = req.body;
  switch (route.upstream) {
    case "openai":
      assert.deepEqual(body.messages, [
        {
          role: "user",
          content: [
            { type: "text", text: IMAGE_PROMPT },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
            { type: "image_url", image_url: { url: IMAGE_URL } },
          ],
        },
      ]);
      claim(req, "messages");
      return;
    case "anthropic":
      assert.deepEqual(body.messages, [
        {
          role: "user",
          content: [
            { type: "text", text: IMAGE_PROMPT },
            { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_BASE64 } },
            { type: "image", source: { type: "url", url: IMAGE_URL } },
          ],
        },
      ]);
      claim(req, "messages");
      return;
    case "gemini":
      assert.deepEqual(body.contents, [
        {
          role: "user",
          parts: [
            { text: IMAGE_PROMPT },
            { inlineData: { mimeType: "image/png", data: PNG_BASE64 } },
            { fileData: { mimeType: "image/png", fileUri: IMAGE_URL } },
          ],
        },
      ]);
      claim(req, "contents");
      return;
    case "openai-responses":
      assert.deepEqual(body.input, [
        {
          type: "message",
          role: "user",
          content: [
            { type: "input_text", text: IMAGE_PROMPT },
            { type: "input_image", detail: "auto", image_url: `data:image/png;base64,${PNG_BASE64}` },
            { type: "input_image", detail: "auto", image_url: IMAGE_URL },
          ],
        },
      ]);
      claim(req, "input");
      return;
  }
}

/**
 * The two tools offered and the tool choice ("required" forces a call, "auto" lets the model choose,
 * undefined: the client gave none and the upstream gets none).
 */
export function checkToolsOffered(req: RecordedRequest, route: Route, choice?: "required" | "auto"): void {
  const body: Json = req.body;
  switch (route.upstream) {
    case "openai":
      assert.deepEqual(body.tools, [
        {
          type: "function",
          function: {
            name: WEATHER_TOOL.name,
            description: WEATHER_TOOL.description,
            parameters: WEATHER_TOOL.schema,
          },
        },
        {
          type: "function",
          function: {
            name: TIME_TOOL.name,
            description: TIME_TOOL.description,
            parameters: TIME_TOOL.schema,
          },
        },
      ]);
      assert.equal(body.tool_choice, choice);
      claim(req, "tools", "tool_choice");
      return;
    case "anthropic":
      assert.deepEqual(body.tools, [
        { name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, input_schema: WEATHER_TOOL.schema },
        { name: TIME_TOOL.name, description: TIME_TOOL.description, input_schema: TIME_TOOL.schema },
      ]);
      assert.deepEqual(body.tool_choice, choice && { type: choice === "required" ? "any" : "auto" });
      claim(req, "tools", "tool_choice");
      return;
    case "gemini":
      assert.deepEqual(body.tools, [
        {
          functionDeclarations: [
            {
              name: WEATHER_TOOL.name,
              description: WEATHER_TOOL.description,
              parameters: WEATHER_TOOL.geminiSchema,
            },
            // additionalProperties has no Schema form: the JSON Schema goes as it is.
            {
              name: TIME_TOOL.name,
              description: TIME_TOOL.description,
              parametersJsonSchema: TIME_TOOL.schema,
            },
          ],
        },
      ]);
      assert.deepEqual(
        body.toolConfig,
        choice && { functionCallingConfig: { mode: choice === "required" ? "ANY" : "AUTO" } },
      );
      claim(req, "tools", "toolConfig");
      return;
    case "openai-responses":
      // Not strict: the Responses API would make a tool strict unless told, and strict schemas must
      // list every property as required.
      assert.deepEqual(body.tools, [
        {
          type: "function",
          name: WEATHER_TOOL.name,
          description: WEATHER_TOOL.description,
          parameters: WEATHER_TOOL.schema,
          strict: false,
        },
        {
          type: "function",
          name: TIME_TOOL.name,
          description: TIME_TOOL.description,
          parameters: TIME_TOOL.schema,
          strict: false,
        },
      ]);
      assert.equal(body.tool_choice, choice);
      claim(req, "tools", "tool_choice");
      return;
  }
}

export interface ExpectedCall {
  /** The id the upstream issued; undefined for Gemini, whose calls come without one. */
  id: string | undefined;
  name: string;
  args: object;
}

/**
 * The turn after tool calls: the user's prompt, the assistant's calls, the results. Each result
 * answers its call (chat `tool_call_id`, messages `tool_use_id`, Gemini `functionResponse.id` + name).
 */
export function checkToolTurn(
  req: RecordedRequest,
  route: Route,
  prompt: string,
  calls: ExpectedCall[],
  results: object[],
): void {
  const body: Json = req.body;
  switch (route.upstream) {
    case "openai": {
      const messages: Json[] = body.messages;
      assert.equal(messages.length, 2 + results.length, JSON.stringify(messages));
      assert.deepEqual(messages[0], { role: "user", content: prompt });
      const assistant = messages[1];
      assert.equal(assistant.role, "assistant");
      assert.deepEqual(
        assistant.tool_calls.map((c: Json) => ({
          id: c.id,
          type: c.type,
          name: c.function.name,
          args: JSON.parse(c.function.arguments),
        })),
        calls.map((c) => ({ id: c.id, type: "function", name: c.name, args: c.args })),
      );
      // Tool messages directly follow the assistant turn, one per call, in order.
      assert.deepEqual(
        messages.slice(2).map((m) => ({ role: m.role, tool_call_id: m.tool_call_id, content: m.content })),
        results.map((r, i) => ({ role: "tool", tool_call_id: calls[i].id, content: JSON.stringify(r) })),
      );
      claim(req, "messages");
      return;
    }
    case "anthropic": {
      const messages: Json[] = body.messages;
      assert.equal(messages.length, 3, JSON.stringify(messages));
      assert.deepEqual(messages[0], { role: "user", content: [{ type: "text", text: prompt }] });
      assert.equal(messages[1].role, "assistant");
      const uses = messages[1].content.filter((b: Json) => b.type === "tool_use");
      assert.deepEqual(
        uses.map((b: Json) => ({ id: b.id, name: b.name, input: b.input })),
        calls.map((c) => ({ id: c.id, name: c.name, input: c.args })),
      );
      assert.equal(messages[2].role, "user");
      assert.deepEqual(
        messages[2].content.map((b: Json) => ({
          type: b.type,
          tool_use_id: b.tool_use_id,
          content: b.content,
        })),
        results.map((r, i) => ({
          type: "tool_result",
          tool_use_id: calls[i].id,
          content: [{ type: "text", text: JSON.stringify(r) }],
        })),
      );
      claim(req, "messages");
      return;
    }
    case "gemini": {
      const contents: Json[] = body.contents;
      assert.equal(contents.length, 3, JSON.stringify(contents));
      assert.deepEqual(contents[0], { role: "user", parts: [{ text: prompt }] });
      assert.equal(contents[1].role, "model");
      const callParts = contents[1].parts.filter((p: Json) => p.functionCall);
      assert.deepEqual(
        callParts.map((p: Json) => ({ name: p.functionCall.name, args: p.functionCall.args })),
        calls.map((c) => ({ name: c.name, args: c.args })),
      );
      assert.equal(contents[2].role, "user");
      const responses = contents[2].parts.map((p: Json) => p.functionResponse);
      assert.deepEqual(
        responses.map((r: Json) => ({ name: r.name, response: r.response })),
        results.map((r, i) => ({ name: calls[i].name, response: r })),
      );
      // Gemini sent no ids: whatever id a call carries back, its response carries the same.
      responses.forEach((r: Json, i: number) => {
        assert.equal(r.id, callParts[i].functionCall.id, `functionResponse ${i} answers its call`);
      });
      if (!relayed(route)) {
        const ids = callParts.map((p: Json) => p.functionCall.id);
        assert.ok(
          ids.every((id: unknown) => typeof id === "string" && id !== ""),
          "the gateway named each call",
        );
        assert.equal(new Set(ids).size, ids.length, "distinct ids");
      }
      claim(req, "contents");
      return;
    }
    case "openai-responses": {
      // Reasoning items may come between (the thinking scenario); everything else is checked.
      const items: Json[] = body.input.filter((item: Json) => item.type !== "reasoning");
      assert.equal(items.length, 1 + calls.length + results.length, JSON.stringify(body.input));
      assert.deepEqual(items[0], responsesMessage("user", prompt));
      assert.deepEqual(
        items.slice(1, 1 + calls.length).map((c) => ({
          type: c.type,
          call_id: c.call_id,
          name: c.name,
          args: JSON.parse(c.arguments),
        })),
        calls.map((c) => ({ type: "function_call", call_id: c.id, name: c.name, args: c.args })),
      );
      assert.deepEqual(
        items.slice(1 + calls.length).map((o) => ({ type: o.type, call_id: o.call_id, output: o.output })),
        results.map((r, i) => ({
          type: "function_call_output",
          call_id: calls[i].id,
          output: JSON.stringify(r),
        })),
      );
      claim(req, "input");
      return;
    }
  }
}

/** The client-visible id of a call carries its upstream id (and maybe a packed signature) first. */
export function checkClientCallId(clientId: string, upstreamId: string | undefined): void {
  assert.ok(typeof clientId === "string" && clientId.length > 0, "the client got a call id");
  if (upstreamId !== undefined) assert.ok(clientId.startsWith(upstreamId), `${clientId} keeps ${upstreamId}`);
}

/** Scenario 5: structured output in the upstream's own field. */
export function checkJsonFormat(req: RecordedRequest, route: Route, chatFormat: Json): void {
  const body: Json = req.body;
  switch (route.upstream) {
    case "openai":
      assert.deepEqual(
        body.response_format,
        // A relay keeps the client's name and strictness, and so does a translation from the other
        // OpenAI protocol; the remaining protocols have no name, so one is given.
        relayed(route) || route.client === "openai-responses"
          ? chatFormat
          : { type: "json_schema", json_schema: { name: "response", schema: JSON_SCHEMA } },
      );
      claim(req, "response_format");
      return;
    case "anthropic":
      assert.deepEqual(body.output_config, { format: { type: "json_schema", schema: JSON_SCHEMA } });
      assert.equal(body.tools, undefined, "no JSON-mode tool when a schema is given");
      claim(req, "output_config");
      return;
    case "gemini":
      assert.equal(body.generationConfig.responseMimeType, "application/json");
      assert.deepEqual(body.generationConfig.responseJsonSchema, JSON_SCHEMA);
      assert.equal(body.generationConfig.responseSchema, undefined);
      claim(req, "generationConfig.responseMimeType", "generationConfig.responseJsonSchema");
      return;
    case "openai-responses": {
      // The OpenAI clients name their format and make it strict; the other protocols have no name,
      // so one is given.
      const named = route.client === "openai" || route.client === "openai-responses";
      assert.deepEqual(
        body.text,
        named
          ? {
              format: {
                type: "json_schema",
                name: chatFormat.json_schema.name,
                schema: JSON_SCHEMA,
                strict: true,
              },
            }
          : { format: { type: "json_schema", name: "response", schema: JSON_SCHEMA } },
      );
      claim(req, "text");
      return;
    }
  }
}

/** Scenario 6: the stop sequence in the upstream's own field. */
export function checkStopSequences(req: RecordedRequest, route: Route): void {
  const body: Json = req.body;
  switch (route.upstream) {
    case "openai":
      assert.deepEqual(body.stop, [STOP]);
      claim(req, "stop");
      return;
    case "anthropic":
      assert.deepEqual(body.stop_sequences, [STOP]);
      claim(req, "stop_sequences");
      return;
    case "gemini":
      assert.deepEqual(body.generationConfig.stopSequences, [STOP]);
      claim(req, "generationConfig.stopSequences");
      return;
    case "openai-responses":
      // The Responses API has no stop sequences: left out (and named in x-switchyard-ignored).
      assert.equal(body.stop, undefined);
      return;
  }
}

/** What each upstream must receive as its reasoning settings, given per client file. */
export type ReasoningExpectation = {
  openai: { reasoning_effort: string };
  anthropic: { thinking: Json };
  gemini: { thinkingConfig: Json };
  "openai-responses": { reasoning: Json };
};

export function checkReasoningSettings(
  req: RecordedRequest,
  route: Route,
  expected: ReasoningExpectation,
): void {
  const body: Json = req.body;
  switch (route.upstream) {
    case "openai":
      assert.equal(body.reasoning_effort, expected.openai.reasoning_effort);
      claim(req, "reasoning_effort");
      return;
    case "anthropic":
      assert.deepEqual(body.thinking, expected.anthropic.thinking);
      // The messages protocol refuses temperature beside thinking.
      assert.equal(body.temperature, undefined);
      claim(req, "thinking");
      return;
    case "gemini":
      assert.deepEqual(body.generationConfig.thinkingConfig, expected.gemini.thinkingConfig);
      claim(req, "generationConfig.thinkingConfig");
      return;
    case "openai-responses":
      assert.deepEqual(body.reasoning, expected["openai-responses"].reasoning);
      // Stateless: the reasoning must come back with the answer to be replayed on the next turn.
      assert.deepEqual(body.include, ["reasoning.encrypted_content"]);
      claim(req, "reasoning", "include");
      return;
  }
}

/**
 * Scenario 7, second request: the upstream got back EXACTLY the signature it issued, in its own
 * field, with the full reasoning text (and, on Gemini, the functionCall's thoughtSignature).
 */
export function checkSignaturesReplayed(req: RecordedRequest, route: Route): void {
  const body: Json = req.body;
  switch (route.upstream) {
    case "openai": {
      const assistant = body.messages.find((m: Json) => m.role === "assistant");
      const details: Json[] = assistant.reasoning_details;
      assert.ok(Array.isArray(details), `reasoning_details sent back: ${JSON.stringify(assistant)}`);
      assert.deepEqual(
        details.filter((d) => d.signature !== undefined).map((d) => d.signature),
        [THINKING_SIGNATURE],
      );
      assert.equal(
        details
          .filter((d) => d.type === "reasoning.text")
          .map((d) => d.text)
          .join(""),
        THINKING_TEXT,
      );
      return;
    }
    case "anthropic": {
      const assistant = body.messages.find((m: Json) => m.role === "assistant");
      assert.deepEqual(assistant.content[0], {
        type: "thinking",
        thinking: THINKING_TEXT,
        signature: THINKING_SIGNATURE,
      });
      return;
    }
    case "gemini": {
      const model = body.contents.find((c: Json) => c.role === "model");
      const thoughts: Json[] = model.parts.filter((p: Json) => p.thought === true);
      assert.equal(thoughts.map((p) => p.text).join(""), THINKING_TEXT);
      assert.deepEqual(
        model.parts
          .filter((p: Json) => !p.functionCall && p.thoughtSignature !== undefined)
          .map((p: Json) => p.thoughtSignature),
        [THINKING_SIGNATURE],
      );
      const call = model.parts.find((p: Json) => p.functionCall);
      assert.equal(
        call.thoughtSignature,
        CALL_SIGNATURE,
        "the functionCall's thoughtSignature came back unchanged",
      );
      return;
    }
    case "openai-responses": {
      const reasoning: Json[] = body.input.filter((item: Json) => item.type === "reasoning");
      assert.equal(reasoning.length, 1, JSON.stringify(body.input));
      assert.equal(reasoning[0].encrypted_content, THINKING_SIGNATURE);
      assert.deepEqual(reasoning[0].summary, [{ type: "summary_text", text: THINKING_TEXT }]);
      return;
    }
  }
}
