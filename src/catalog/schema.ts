// The schema of one model record, as written in `catalog/*.yaml` and in the config file's `models:`
// (snake_case; the API's names inside `pricings`, docs/architecture.md §6). Every key but `id` may be left
// out: an override of a catalog model gives only what it changes, and a new model gets the defaults of
// MODEL_DEFAULTS (filled by `completeModel`, since an override must not get them). docs/configuration.md is
// generated from the descriptions here.

import { z } from "zod";
import { checkCondition, checkTiers } from "./pricing-rules.ts";
import { flag, int, notAMapping, requiredOr, text } from "./schema-kit.ts";
import type { Modality, PricingCategory } from "./types.ts";

export const MODALITIES = ["text", "image", "video", "audio", "file"] as const satisfies readonly Modality[];
/** What a model may write: `embeddings` marks an embedding model. */
export const OUTPUT_MODALITIES = [...MODALITIES, "embeddings"] as const satisfies readonly Modality[];

export const PRICING_CATEGORIES = [
  "prompt",
  "completion",
  "input_cache_read",
  "input_cache_write_5_min",
  "input_cache_write_1_h",
  "input_cache_write",
  "web_search",
  "internal_reasoning",
  "image",
  "audio",
  "video",
  "audio_and_video",
] as const satisfies readonly PricingCategory[];

/**
 * What a model that is not in the built-in catalog gets for a key it leaves out. Chosen so that a
 * record of `id` and `endpoints` alone is served, listed and metered honestly.
 */
export const MODEL_DEFAULTS = {
  description: "",
  /** Unix seconds; 0 says "release date unknown" (listings show 1970-01-01). */
  created: 0,
  input_modalities: ["text"] as Modality[],
  output_modalities: ["text"] as Modality[],
  reasoning: false,
  /** A common context size of current models; listings show it, nothing is refused by it. */
  context_length: 128_000,
  /** The output limit sent to Anthropic and Gemini upstreams when a request sets none: the usual 4096. */
  max_output_tokens: 4096,
  /** No prices: generations are metered and rated at 0, and `serve` says so at start. */
  pricings: {},
};

/** `<provider>/<model_name>`; the name may hold further slashes, never spaces or a `:` (Gemini paths end in `:method`). */
const MODEL_ID = /^[A-Za-z0-9][\w.-]*(\/[\w.-]+)+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** A name a client may ask for without the provider part. */
const ALIAS = /^[A-Za-z0-9][\w.-]*(\/[\w.-]+)*$/;

// ─── pricings ─────────────────────────────────────────────────────────────────────────────────

const tokenBound = (description: string) =>
  z
    .number({ error: requiredOr("must be a number >= 0 (thousands of tokens)") })
    .min(0, { error: "must be a number >= 0 (thousands of tokens)" })
    .optional()
    .meta({ description, type: "number ≥ 0" });

const conditionSchema = z
  .strictObject(
    {
      unit: z
        .literal("kTokens", { error: "must be kTokens" })
        .default("kTokens")
        .meta({ description: "Counts are in thousands of tokens (the only unit)." }),
      gte: tokenBound("Applies when the count is at least this."),
      lte: tokenBound("Applies when the count is at most this."),
      gt: tokenBound("Applies when the count is above this."),
      lt: z
        .number({ error: requiredOr("must be a number >= 0 (thousands of tokens)") })
        .min(0, { error: "must be a number >= 0 (thousands of tokens)" })
        .nullable()
        .optional()
        .meta({
          description: "Applies when the count is below this; `null` says there is no upper bound.",
          type: "number ≥ 0 or null",
        }),
    },
    { error: notAMapping("must be a mapping with unit: kTokens and bounds (gte, lte, gt, lt)") },
  )
  .superRefine((condition, ctx) => {
    const problem = checkCondition(condition);
    if (problem) ctx.addIssue({ code: "custom", message: problem, input: condition });
  });

const conditionsSchema = z
  .strictObject(
    {
      prompt_tokens: conditionSchema.optional(),
      completion_tokens: conditionSchema.optional(),
    },
    { error: notAMapping("must be a mapping with prompt_tokens and/or completion_tokens") },
  )
  .superRefine((conditions, ctx) => {
    if (conditions.prompt_tokens === undefined && conditions.completion_tokens === undefined)
      ctx.addIssue({
        code: "custom",
        message: "must name prompt_tokens or completion_tokens",
        input: conditions,
      });
  })
  .meta({
    docKey: "<count>",
    description:
      "The item applies only when every condition holds, each on the request's prompt or completion token count.",
  });

const pricingItemSchema = z.strictObject(
  {
    value: z
      .number({ error: requiredOr("must be a number >= 0 (USD per unit; 0 means free)") })
      .min(0, { error: "must be a number >= 0 (USD per unit; 0 means free)" })
      .meta({ description: "Price in USD per unit; 0 means free.", type: "number ≥ 0" }),
    unit: z.enum(["perMTokens", "perCount", "perSecond"]).meta({
      description:
        "Per million tokens, per call or item (web searches, images), or per second (audio, video).",
    }),
    currency: z.literal("USD").default("USD").meta({ description: "The only currency." }),
    conditions: conditionsSchema.optional(),
  },
  { error: notAMapping("must be a mapping with value, unit and currency") },
);

const pricingCategorySchema = z
  .array(pricingItemSchema, { error: "must be a non-empty list of pricing items" })
  .min(1, { error: "must be a non-empty list of pricing items" })
  .superRefine((items, ctx) => {
    const problem = checkTiers(items);
    if (problem)
      ctx.addIssue({
        code: "custom",
        message: problem.message,
        path: problem.index === undefined ? [] : [problem.index],
        input: items,
      });
  })
  .meta({
    description:
      "The pricing items of one category; the first whose conditions all hold prices the request's quantity.",
  });

export const pricingsSchema = z
  .strictObject(
    Object.fromEntries(PRICING_CATEGORIES.map((c) => [c, pricingCategorySchema.optional()])) as Record<
      PricingCategory,
      z.ZodOptional<typeof pricingCategorySchema>
    >,
    { error: notAMapping("must be a mapping of price category to a list of pricing items") },
  )
  .meta({
    docKey: "<category>",
    defaultText: "none: rated at 0",
    description:
      "Prices by category. Given in an override, it replaces the model's prices whole. A model without " +
      "prices is served and metered, its generations are rated at 0 USD, and `serve` prints a note naming it.",
  });

// ─── the rest of the record ───────────────────────────────────────────────────────────────────

const modalitiesSchema = (description: string, modalities: readonly [Modality, ...Modality[]] = MODALITIES) =>
  z
    .array(z.enum(modalities), { error: `must be a non-empty list of ${modalities.join(", ")}` })
    .min(1, { error: `must be a non-empty list of ${modalities.join(", ")}` })
    .superRefine((list, ctx) => {
      list.forEach((m, i) => {
        if (list.indexOf(m) !== i)
          ctx.addIssue({ code: "custom", message: `repeats ${m}`, path: [i], input: m });
      });
    })
    .optional()
    .meta({ description });

/** A release date `YYYY-MM-DD` (UTC midnight) or unix seconds → unix seconds. */
const createdSchema = z
  .unknown()
  .transform((value, ctx) => {
    const seconds = unixSeconds(value);
    if (seconds === undefined) {
      ctx.issues.push({ code: "custom", message: "must be a date YYYY-MM-DD or unix seconds", input: value });
      return z.NEVER;
    }
    return seconds;
  })
  .optional()
  .meta({
    description: "Release date, shown by listings.",
    type: "date `YYYY-MM-DD` or unix seconds",
    defaultText: "`0` (unknown)",
  });

function unixSeconds(value: unknown): number | undefined {
  if (Number.isSafeInteger(value) && (value as number) >= 0) return value as number;
  // A YAML 1.1 reader may already have turned the date into a Date.
  if (value instanceof Date && !Number.isNaN(value.getTime())) return Math.floor(value.getTime() / 1000);
  const match = typeof value === "string" ? DATE.exec(value) : null;
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day);
  const back = new Date(ms);
  const real =
    back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === day;
  return real ? ms / 1000 : undefined;
}

const endpointSchema = z.strictObject(
  {
    provider: text().meta({
      description: "A provider id: a built-in one or one under `providers:`.",
    }),
    model: text().optional().meta({
      description: "The name the upstream knows it by.",
      defaultText: "the id's part after the first `/`",
    }),
    pricings: pricingsSchema.optional().meta({
      description:
        "This endpoint's own prices, where they differ from the model's (a cloud platform's, docs/clouds.md): a " +
        "generation it answers is rated with them. Same keys as the model's `pricings`.",
      defaultText: "the model's",
    }),
  },
  { error: notAMapping("must be a mapping {provider, model}") },
);

const ENDPOINTS_PROBLEM =
  "must be a non-empty list of {provider, model} (which provider serves it, under which name)";

const endpointsSchema = z
  .array(endpointSchema, { error: ENDPOINTS_PROBLEM })
  .min(1, { error: ENDPOINTS_PROBLEM })
  .optional()
  .meta({
    description:
      "Where it is served, in priority order. A model is listed and served when one of its endpoints names " +
      "an enabled provider. Given in an override, it replaces the endpoints whole.",
    defaultText: "required for a new model",
  });

/** The fields of a request's `provider.routing`: a model's default, and the config's for every model. */
export const routingDefaultsShape = {
  type: z
    .enum(["priority", "round_robin", "least_latency"])
    .optional()
    .meta({
      description:
        "`priority` tries endpoints in the order listed, `round_robin` takes turns, `least_latency` " +
        "prefers the fastest recent time to first token.",
      defaultText: "`priority`",
    }),
  primary_factor: z
    .enum(["cost", "speed", "quality"])
    .optional()
    .meta({ description: 'What "best" means when several models may answer (model-level fallback).' }),
  providers: z
    .array(text())
    .optional()
    .meta({ description: "Only these providers may serve it.", type: "list of provider ids" }),
  fallback: z
    .union([z.boolean(), text()], { error: "must be true, false or a provider id" })
    .optional()
    .meta({
      description:
        "`true` tries the next endpoint on a retryable failure, `false` returns the first error, a provider " +
        "id switches to that provider.",
      type: '`"true"`, `"false"` (or `true`, `false`), or a provider id',
      defaultText: '`"true"`',
    }),
};

const routingSchema = z
  .strictObject(routingDefaultsShape, {
    error: notAMapping("must be a mapping (type, primary_factor, providers, fallback)"),
  })
  .optional()
  .meta({
    description:
      "This model's routing default, the fields of `provider.routing`; the request overrides it field by field.",
  });

export const modelRecordSchema = z
  .strictObject(
    {
      id: z
        .string({
          error: requiredOr(
            "must be <provider>/<model_name> (letters, digits, '.', '_', '-'; no spaces or ':')",
          ),
        })
        .regex(MODEL_ID, {
          error: "must be <provider>/<model_name> (letters, digits, '.', '_', '-'; no spaces or ':')",
        })
        .meta({
          description:
            "`<provider>/<model_name>`, what clients ask for. An id already in the catalog is overridden key by key.",
        }),
      display_name: text().optional().meta({ description: "Name shown in listings.", defaultText: "the id" }),
      description: z.string().optional().meta({
        description: "Shown by the content-generation listing.",
        default: MODEL_DEFAULTS.description,
      }),
      created: createdSchema,
      owned_by: text().optional().meta({
        description: "Shown by the chat-completions listing.",
        defaultText: "the id's part before the first `/`",
      }),
      input_modalities: modalitiesSchema("What it reads.").meta({ default: MODEL_DEFAULTS.input_modalities }),
      output_modalities: modalitiesSchema(
        "What it writes; `[embeddings]` makes it an embedding model, served by the embedding endpoints only.",
        OUTPUT_MODALITIES,
      ).meta({
        default: MODEL_DEFAULTS.output_modalities,
      }),
      reasoning: flag()
        .optional()
        .meta({ description: "Whether it thinks before answering.", default: MODEL_DEFAULTS.reasoning }),
      context_length: int({ min: 1 })
        .optional()
        .meta({
          description: "Tokens of context, shown by listings.",
          default: MODEL_DEFAULTS.context_length,
          defaultText: `\`${MODEL_DEFAULTS.context_length}\`, or \`max_output_tokens\` if larger`,
        }),
      max_output_tokens: int({ min: 1 })
        .optional()
        .meta({
          description:
            "Longest answer, at most `context_length`. Sent as the output limit when a request sets none and " +
            "the upstream speaks Anthropic (whose `max_tokens` is required) or Gemini.",
          defaultText: `\`${MODEL_DEFAULTS.max_output_tokens}\`, or \`context_length\` if smaller`,
        }),
      pricings: pricingsSchema.optional(),
      endpoints: endpointsSchema,
      routing: routingSchema,
      quality_rank: z
        .number()
        .optional()
        .meta({ description: "Higher is better; used by `primary_factor: quality`." }),
      aliases: z
        .array(
          z
            .string({ error: "must be a model name (letters, digits, '.', '_', '-', '/'; no spaces or ':')" })
            .regex(ALIAS, {
              error: "must be a model name (letters, digits, '.', '_', '-', '/'; no spaces or ':')",
            }),
          { error: "must be a list of model names" },
        )
        .optional()
        .meta({
          description:
            "More names a request may give instead of the id, as the vendor's clients write them (a dated " +
            "snapshot id such as `claude-haiku-4-5-20251001`). Like the id's model name, an alias resolves " +
            "only when exactly one served model has it; listings keep the id.",
          type: "list of model names",
        }),
      dimensions: int({ min: 1 })
        .optional()
        .meta({
          description:
            "An embedding model's vector length (`output_modalities: [embeddings]`): the most `dimensions` " +
            "(`outputDimensionality`) a request may ask for.",
          defaultText: "no limit checked by the gateway",
        }),
    },
    { error: notAMapping("must be a mapping (a model record)") },
  )
  .meta({ description: "One model." });

export type ModelRecord = z.output<typeof modelRecordSchema>;
export type EndpointRecord = NonNullable<ModelRecord["endpoints"]>[number];
