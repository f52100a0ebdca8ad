// What a chat-completions provider does otherwise than OpenAI's API, which a call to it, translated
// or relayed, must follow: the provider's quirks (UpstreamTarget.quirks), set in its configuration
// (docs/configuration.md: `max_tokens_field`, `stream_usage`, `request_fields`).

import type { RequestFields } from "./request-fields.ts";

export interface ChatQuirks {
  /**
   * The provider takes the output limit only as the older `max_tokens` (Mistral refuses
   * `max_completion_tokens` with a 422; DeepSeek and Together document only `max_tokens`).
   */
  legacyMaxTokens?: boolean;
  /**
   * The provider reports a stream's usage in its last chunk unasked, and refuses `stream_options`
   * (Mistral, with a 422): the request carries none.
   */
  streamUsageUnasked?: boolean;
  /**
   * The provider refuses request members outside its vendor's list (Mistral, with a 422): the
   * request carries only those (request-fields.ts).
   */
  requestFields?: RequestFields;
}
