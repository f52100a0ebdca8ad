// Errors as the Responses API writes them: OpenAI's error shape, the same as chat-completions'
// (src/protocols/shared/openai-errors.ts).

export { decodeError, encodeError } from "../shared/openai-errors.ts";
