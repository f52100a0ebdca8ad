// Tool-call arguments travel as JSON text in the IR; the messages protocol wants an `input` object.

/** The arguments as an object; `{}` when empty, invalid JSON, or not an object. */
export function toolInputObject(argumentsJson: string): Record<string, unknown> {
  if (argumentsJson.trim() === "") return {};
  try {
    const parsed: unknown = JSON.parse(argumentsJson);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
