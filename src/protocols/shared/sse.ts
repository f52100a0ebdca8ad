// Server-Sent Events framing shared by the protocol encoders.

/** `data: <json>\n\n` (chat-completions and content-generation streams). */
export function sseData(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/** `event: <name>\ndata: <json>\n\n` (messages streams need the event line). */
export function sseEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}
