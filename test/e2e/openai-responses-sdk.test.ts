// The unmodified `openai` SDK's Responses API (`responses.create`, `responses.stream`) against a
// running gateway and its local models: text, a function-tool round trip, reasoning whose signature
// the local model checks on the next turn, the lookup, and each bad input as the SDK's typed error.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";
import { lookupSettled, rawNumber } from "../support/lookup.ts";
import { usd } from "../support/money.ts";

let gw: RunningGateway;
let client: OpenAI;

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-responses-"));
  gw = await startGateway(baseConfig(dir), { dir });
  client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
after(() => gw?.stop());

const TOOLS: OpenAI.Responses.Tool[] = [
  {
    type: "function",
    name: "get_weather",
    description: "Weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    strict: false,
  },
];

type Item = OpenAI.Responses.ResponseInputItem;

/** An answer's output as the next request's input (the SDK types them apart; the wire does not). */
function replay(output: unknown[]): Item[] {
  return output as Item[];
}

describe("responses against the local models", () => {
  test("creates a response with the generation id, real usage and every usage detail", async () => {
    const { data, response } = await client.responses
      .create({ model: "local/echo-1", instructions: "Be brief.", input: "Hello there, gateway" })
      .withResponse();
    assert.match(data.id, /^gen-/);
    assert.equal(response.headers.get("x-generation-id"), data.id);
    assert.equal(data.object, "response");
    assert.equal(data.model, "local/echo-1");
    assert.equal(data.status, "completed");
    assert.equal(data.output_text, "You said: Hello there, gateway");
    const usage = data.usage;
    assert.ok(usage && usage.input_tokens > 0 && usage.output_tokens > 0);
    assert.equal(usage.total_tokens, usage.input_tokens + usage.output_tokens);
    assert.equal(usage.output_tokens_details.reasoning_tokens, 0);
    assert.equal(usage.input_tokens_details.cached_tokens, 0);
  });

  test("streams a response the SDK assembles, every event in sequence", async () => {
    const stream = client.responses.stream({ model: "local/echo-1", input: "Stream me a reply please" });
    const deltas: string[] = [];
    let sequence = 0;
    stream.on("response.output_text.delta", (event) => deltas.push(event.delta));
    for await (const event of stream) assert.equal(event.sequence_number, sequence++);
    const final = await stream.finalResponse();
    assert.equal(final.output_text, "You said: Stream me a reply please");
    assert.ok(deltas.length > 1, "text arrives in several deltas");
    assert.match(final.id, /^gen-/);
    assert.ok(final.usage && final.usage.output_tokens > 0);
  });

  test("calls a function when offered and mentioned, then answers from its output", async () => {
    const input: OpenAI.Responses.ResponseInputItem[] = [
      { role: "user", content: 'Use get_weather for "Paris"' },
    ];
    const first = await client.responses.create({ model: "local/echo-1", input, tools: TOOLS, store: false });
    const call = first.output.find((item) => item.type === "function_call");
    assert.ok(call, JSON.stringify(first.output));
    assert.equal(call.name, "get_weather");
    assert.deepEqual(JSON.parse(call.arguments), { city: "Paris" });
    const second = await client.responses.create({
      model: "local/echo-1",
      input: [
        ...input,
        ...replay(first.output),
        { type: "function_call_output", call_id: call.call_id, output: "18C" },
      ],
      tools: TOOLS,
      store: false,
    });
    assert.match(second.output_text, /18C/);
  });

  test("reasoning: the summary and its signature, replayed and checked by the model on the next turn", async () => {
    const input: OpenAI.Responses.ResponseInputItem[] = [
      { role: "user", content: 'Use get_weather for "Oslo"' },
    ];
    const params = {
      model: "local/think-1",
      tools: TOOLS,
      reasoning: { effort: "low" as const, summary: "auto" as const },
      include: ["reasoning.encrypted_content" as const],
      store: false,
    };
    const stream = client.responses.stream({ ...params, input });
    const summary: string[] = [];
    stream.on("response.reasoning_summary_text.delta", (event) => summary.push(event.delta));
    const first = await stream.finalResponse();
    const reasoning = first.output.find((item) => item.type === "reasoning");
    assert.ok(reasoning?.encrypted_content, "the thinking's signature is the encrypted content");
    assert.match(reasoning.summary[0]?.text ?? "", /The user wrote 4 words/);
    assert.equal(summary.join(""), reasoning.summary[0]?.text);
    assert.ok((first.usage?.output_tokens_details.reasoning_tokens ?? 0) > 0);
    // The settings asked are echoed, the summary as OpenAI's answer does (not null).
    assert.deepEqual(first.reasoning, { effort: "low", summary: "auto" });
    const call = first.output.find((item) => item.type === "function_call");
    assert.ok(call);
    // The local model refuses thinking whose signature does not match its text (a 400).
    const second = await client.responses.create({
      ...params,
      input: [
        ...input,
        ...replay(first.output),
        { type: "function_call_output", call_id: call.call_id, output: "-2C" },
      ],
    });
    assert.match(second.output_text, /-2C/);
    assert.deepEqual(second.reasoning, { effort: "low", summary: "auto" });
    const tampered = first.output.map((item) =>
      item.type === "reasoning"
        ? { ...item, summary: [{ type: "summary_text" as const, text: "forged" }] }
        : item,
    );
    await assert.rejects(
      client.responses.create({
        ...params,
        input: [
          ...input,
          ...replay(tampered),
          { type: "function_call_output", call_id: call.call_id, output: "-2C" },
        ],
      }),
      // Named by the Responses client's own prompt member, not an IR position.
      (error: unknown) => error instanceof OpenAI.BadRequestError && error.param === "input",
    );
  });

  test("the lookup shows api responses and the exact cost", async () => {
    const res = await client.responses.create({ model: "local/echo-1", input: "Price me" });
    const body = await lookupSettled(gw.url, res.id, PAYG_KEY);
    assert.equal(body.api, "responses");
    assert.equal(body.generationId, res.id);
    assert.equal(body.nativeTokens.prompt_tokens, res.usage?.input_tokens);
    assert.equal(body.nativeTokens.completion_tokens, res.usage?.output_tokens);
    // local/echo-1 costs $1 per million prompt tokens and $2 per million completion tokens.
    const expected = usd.add(
      usd.perMillion(res.usage?.input_tokens ?? 0, "1"),
      usd.perMillion(res.usage?.output_tokens ?? 0, "2"),
    );
    assert.equal(usd.normalize(rawNumber(body, "usage")), expected);
  });
});

describe("bad input as the SDK's typed errors, in OpenAI's error shape", () => {
  test("a wrong key is an AuthenticationError; no key a 401 with the error object", async () => {
    const bad = new OpenAI({ apiKey: "sk-wrong", baseURL: `${gw.url}/v1`, maxRetries: 0 });
    await assert.rejects(
      bad.responses.create({ model: "local/echo-1", input: "x" }),
      OpenAI.AuthenticationError,
    );
    const res = await fetch(`${gw.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "local/echo-1", input: "x" }),
    });
    assert.equal(res.status, 401);
    const body = (await res.json()) as any;
    assert.equal(body.error.type, "authentication_error");
  });

  test("an unknown model is a NotFoundError", async () => {
    await assert.rejects(
      client.responses.create({ model: "nope/nothing", input: "x" }),
      OpenAI.NotFoundError,
    );
  });

  test("previous_response_id is a BadRequestError that says to send the whole input", async () => {
    const first = await client.responses.create({ model: "local/echo-1", input: "x" });
    const err = await client.responses
      .create({ model: "local/echo-1", input: "y", previous_response_id: first.id })
      .catch((e: unknown) => e);
    assert.ok(err instanceof OpenAI.BadRequestError);
    assert.equal((err as any).param, "previous_response_id");
    assert.match(err.message, /send the whole conversation in `input`/);
  });

  test("a bad temperature is a BadRequestError naming it", async () => {
    const err = await client.responses
      .create({ model: "local/echo-1", input: "x", temperature: 7 })
      .catch((e) => e);
    assert.ok(err instanceof OpenAI.BadRequestError);
    assert.equal((err as any).param, "temperature");
  });
});
