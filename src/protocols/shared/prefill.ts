// Upstreams whose protocol answers a trailing assistant message afresh (chat-completions, the
// Responses API) are asked in words to continue it: a user turn after it (docs/translation.md §2b).

export const CONTINUE_INSTRUCTION =
  "Continue your last message from exactly where it stops. Reply with the continuation only: do not repeat any of that message, and add nothing before the continuation.";
