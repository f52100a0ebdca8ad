// Messages stream events as the API writes them, known in advance: a text block's start, a block's
// stop and message_stop are the same text in every stream but for the block's index, and each text
// block's deltas the same but for their piece. The decoder reads these without JSON.parse (each is
// once per block or stream, and a parse costs several times more in the running server than alone,
// BENCHMARKS.md); any other spelling of them is parsed as before.

import { StringSlots } from "../shared/string-slots.ts";
import type { Json } from "../shared/validate.ts";

const MESSAGE_STOP = '{"type":"message_stop"}';
// An index as JSON writes a small integer (no sign, no leading zero: `01` is not JSON).
const BLOCK_STOP = /^\{"type":"content_block_stop","index":(0|[1-9]\d{0,8})\}$/;
const TEXT_BLOCK_START =
  /^\{"type":"content_block_start","index":(0|[1-9]\d{0,8}),"content_block":\{"type":"text","text":""\}\}$/;

/** The object JSON.parse would make of `data` when it is one of the known texts; undefined otherwise. */
export function knownEvent(data: string): Json | undefined {
  if (data === MESSAGE_STOP) return { type: "message_stop" };
  const stop = BLOCK_STOP.exec(data);
  if (stop) return { type: "content_block_stop", index: Number(stop[1]) };
  const start = TEXT_BLOCK_START.exec(data);
  if (start)
    return {
      type: "content_block_start",
      index: Number(start[1]),
      content_block: { type: "text", text: "" },
    };
  return undefined;
}

/** The template of a text block's deltas as the API writes them (its piece the one slot). */
export function textDeltaForm(wireIndex: number): StringSlots | undefined {
  return FIRST_TEXT_DELTA_FORMS[wireIndex] ?? learnTextDeltaForm(wireIndex);
}

function learnTextDeltaForm(wireIndex: number): StringSlots | undefined {
  const text = `{"type":"content_block_delta","index":${wireIndex},"delta":{"type":"text_delta","text":"x"}}`;
  return StringSlots.learn(text, ["x"]);
}

/** The first blocks' forms, learned once for every stream (a template never changes). */
const FIRST_TEXT_DELTA_FORMS = Array.from({ length: 8 }, (_, index) => learnTextDeltaForm(index));
