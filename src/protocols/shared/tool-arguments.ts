// Tool-call arguments travel as JSON text in the IR; the messages protocol (`input`) and the
// content-generation protocol (`args`) want an object there.

/**
 * The arguments as an object; `{}` when empty, not JSON (models sometimes emit broken JSON) or not an
 * object, since neither protocol accepts anything else in that place.
 */
export function argumentsObject(argumentsJson: string): Record<string, unknown> {
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
