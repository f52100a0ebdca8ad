// Errors as the chat protocol writes them: OpenAI's error shape, shared with the Responses API
// (src/protocols/shared/openai-errors.ts).

export {
  decodeError,
  decodeErrorObject,
  encodeError,
  errorBody,
  retryAfterSeconds,
} from "../shared/openai-errors.ts";
