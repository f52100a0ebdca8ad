// Reads a raw SSE body back into frames for wire-level assertions in the self-tests: what the fake
// put on the wire, before any SDK smooths it over.

export interface Frame {
  event?: string;
  data: string;
}

export function parseFrames(text: string): Frame[] {
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const frame: Frame = { data: "" };
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith("event: ")) frame.event = line.slice(7);
        else if (line.startsWith("data: ")) frame.data += line.slice(6);
      }
      return frame;
    });
}

/** POSTs JSON and returns the status, headers and SSE frames (or the raw text). */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Headers; text: string; frames: Frame[] }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, frames: parseFrames(text) };
}
