// Generated images in a chat answer, read back: `message.images` (streamed: `delta.images`), each
// `{type: "image_url", image_url: {url: "data:<type>;base64,…"}}` (encode-response.ts `chatImage`).
// Only inline images become IR blocks; each one counts as an image output for billing.

import type { GeneratedImageBlock } from "../../ir/response.ts";
import { parseDataUrl } from "../shared/data-url.ts";
import { isObject } from "../shared/validate.ts";

export function imagesFrom(value: unknown): GeneratedImageBlock[] {
  if (!Array.isArray(value)) return [];
  const out: GeneratedImageBlock[] = [];
  for (const item of value) {
    const url = isObject(item) && isObject(item.image_url) ? item.image_url.url : undefined;
    const inline = typeof url === "string" ? parseDataUrl(url) : undefined;
    if (inline) out.push({ type: "image", source: { kind: "base64", ...inline } });
  }
  return out;
}
