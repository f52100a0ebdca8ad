// The local models' own thread: the tokenizer and the answers live here. Loading the tokenizer
// (~70 MiB of tables, 0.5 to 0.9 s of parsing) and counting a long prompt would each hold the
// gateway's event loop; here they hold only this thread. Jobs take turns: each runs for at most
// SLICE_MS of counting before letting the next message in, so a short prompt does not wait behind a
// megabyte-long one.

import { setImmediate as nextTurn } from "node:timers/promises";
import { parentPort } from "node:worker_threads";
import type { EmbeddingInput, EmbeddingResponse } from "../../ir/embeddings.ts";
import { GatewayError } from "../../ir/errors.ts";
import type { Request } from "../../ir/request.ts";
import { countEachSteps, truncateSteps } from "./bounded-bpe.ts";
import { embedLocally } from "./embed.ts";
import { loadTokenizer, type Tokenizer } from "./encoding.ts";
import { type LocalReplyOptions, type LocalTokens, localReply } from "./reply.ts";

export type LocalJob =
  | { id: number; op: "count"; texts: string[]; limit?: number }
  | { id: number; op: "truncate"; text: string; max: number }
  | { id: number; op: "reply"; request: Request; options: LocalReplyOptions }
  | { id: number; op: "embed"; inputs: EmbeddingInput[]; dimensions: number };

/** A job's outcome; a GatewayError travels as its fields and is made again on the other side. */
export type LocalJobResult =
  | { id: number; value: unknown }
  | { id: number; error: { message: string; kind?: GatewayError["kind"]; status?: number; param?: string } };

const SLICE_MS = 5;

let loading: Promise<Tokenizer> | undefined;

/** Runs the steps, pausing for the next turn of the thread's loop every SLICE_MS. */
async function drive<T>(steps: Generator<void, T>): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (performance.now() - sliceStart > SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
}

async function tokens(): Promise<LocalTokens> {
  loading ??= loadTokenizer();
  const { encoding, splitter } = await loading;
  return {
    countEach: (texts, limit) => drive(countEachSteps(encoding, splitter, texts, limit)),
    truncate: (text, max) => drive(truncateSteps(encoding, splitter, text, max)),
  };
}

async function run(job: LocalJob): Promise<unknown> {
  const counter = await tokens();
  switch (job.op) {
    case "count":
      return counter.countEach(job.texts, job.limit);
    case "truncate":
      return counter.truncate(job.text, job.max);
    case "reply":
      return localReply(job.request, job.options, counter);
    case "embed":
      return embed(job.inputs, job.dimensions, counter);
  }
}

/** Each input's vector, and the real token count of them all (a token-id input counts its ids). */
async function embed(
  inputs: EmbeddingInput[],
  dimensions: number,
  counter: LocalTokens,
): Promise<Required<EmbeddingResponse>> {
  const texts = inputs.map((input) => (input.kind === "text" ? input.text : ""));
  let promptTokens = (await counter.countEach(texts)).total;
  for (const input of inputs) if (input.kind === "tokens") promptTokens += input.tokens.length;
  return { vectors: inputs.map((input) => embedLocally(input, dimensions)), promptTokens };
}

const port = parentPort;
if (port) {
  port.on("message", (job: LocalJob) => {
    run(job).then(
      (value) => port.postMessage({ id: job.id, value } satisfies LocalJobResult),
      (error: unknown) => port.postMessage({ id: job.id, error: describe(error) } satisfies LocalJobResult),
    );
  });
}

function describe(error: unknown): Extract<LocalJobResult, { error: unknown }>["error"] {
  if (error instanceof GatewayError)
    return { message: error.message, kind: error.kind, status: error.status, param: error.param };
  return { message: error instanceof Error ? error.message : String(error) };
}
