// OpenTelemetry traces of inference requests, exported over OTLP/HTTP (JSON) when
// `telemetry.otlp.endpoint` is set; with no endpoint nothing here is loaded or called. A request is
// one SERVER span, child of the caller's `traceparent` when it sends one; each upstream attempt is a
// CLIENT span under it. Both carry the GenAI semantic conventions (gen_ai.*) and the generation id.
// The exporter batches spans off the request path. docs/operations.md#traces.

import {
  type Attributes,
  type Context,
  defaultTextMapGetter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { GatewayError } from "../ir/errors.ts";
import type { Usage } from "../ir/usage.ts";
import type { IncomingHeaders, ProtocolName } from "../protocols/types.ts";

export interface TracingOptions {
  /** The collector's OTLP/HTTP base URL (`/v1/traces` is added unless it is there). */
  endpoint: string;
  headers: Record<string, string>;
  serviceName: string;
}

/** The GenAI operation each client protocol performs. */
const OPERATION: Record<ProtocolName, string> = {
  "openai-chat": "chat",
  "openai-responses": "chat",
  anthropic: "chat",
  gemini: "generate_content",
};

/** The semantic conventions' well-known `gen_ai.provider.name` for an upstream protocol. */
const PROVIDER_NAME: Record<string, string> = {
  openai: "openai",
  "openai-responses": "openai",
  anthropic: "anthropic",
  gemini: "gcp.gemini",
  // Cloud platforms, by the semantic conventions' names for them.
  "aws-bedrock": "aws.bedrock",
  "google-vertex": "gcp.vertex_ai",
  "azure-openai": "azure.ai.openai",
};

export class Tracing {
  private readonly provider: BasicTracerProvider;
  private readonly tracer: Tracer;
  private readonly propagator = new W3CTraceContextPropagator();

  constructor(opts: TracingOptions) {
    const url = /\/v1\/traces\/?$/.test(opts.endpoint)
      ? opts.endpoint
      : `${opts.endpoint.replace(/\/+$/, "")}/v1/traces`;
    this.provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ "service.name": opts.serviceName }),
      // Spans leave in batches at most a second after they end.
      spanProcessors: [
        new BatchSpanProcessor(new OTLPTraceExporter({ url, headers: opts.headers }), {
          scheduledDelayMillis: 1_000,
        }),
      ],
    });
    this.tracer = this.provider.getTracer("switchyard");
  }

  /** The span of one inference request, under the caller's trace when it sent a `traceparent`. */
  request(face: ProtocolName, generationId: string, headers: IncomingHeaders): RequestTrace {
    const parent = this.propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
    return new RequestTrace(this.tracer, parent, face, generationId);
  }

  /** Exports what is buffered, then stops. */
  async close(): Promise<void> {
    await this.provider.shutdown();
  }
}

/** What the request's span learns once it ends. */
export interface RequestEnd {
  status: number;
  /** What failed it: an error answered, or a stream that failed after it began. */
  error?: GatewayError;
  model?: string;
  /** The model that answered (a fallback model may). */
  responseModel?: string;
  provider?: string;
  usage?: Usage;
  finishReason?: string;
  stream?: boolean;
}

export class RequestTrace {
  private readonly tracer: Tracer;
  private readonly span: Span;
  private readonly context: Context;
  private readonly face: ProtocolName;
  private readonly generationId: string;
  private answering?: Span;

  constructor(tracer: Tracer, parent: Context, face: ProtocolName, generationId: string) {
    this.tracer = tracer;
    this.face = face;
    this.generationId = generationId;
    this.span = tracer.startSpan(
      OPERATION[face],
      {
        kind: SpanKind.SERVER,
        attributes: {
          "gen_ai.operation.name": OPERATION[face],
          "gen_ai.response.id": generationId,
          "switchyard.generation_id": generationId,
        },
      },
      parent,
    );
    this.context = trace.setSpan(parent, this.span);
  }

  /** The span of one upstream attempt; ended by `failed`, or with the request when it answered. */
  attempt(
    n: number,
    provider: { id: string; protocol: string; platform?: { kind: string } },
    upstreamModel: string,
  ): AttemptTrace {
    const operation = OPERATION[this.face];
    const span = this.tracer.startSpan(
      `${operation} ${upstreamModel}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          "gen_ai.operation.name": operation,
          "gen_ai.provider.name": PROVIDER_NAME[provider.platform?.kind ?? provider.protocol] ?? provider.id,
          "gen_ai.request.model": upstreamModel,
          "switchyard.provider": provider.id,
          "switchyard.attempt": n,
          "switchyard.generation_id": this.generationId,
        },
      },
      this.context,
    );
    return {
      answered: () => {
        this.answering = span;
      },
      failed: (err) => {
        fail(span, err);
        span.end();
      },
    };
  }

  end(e: RequestEnd): void {
    const operation = OPERATION[this.face];
    const attributes: Attributes = { "http.response.status_code": e.status };
    if (e.model) {
      this.span.updateName(`${operation} ${e.model}`);
      attributes["gen_ai.request.model"] = e.model;
    }
    if (e.stream !== undefined) attributes["switchyard.stream"] = e.stream;
    if (e.responseModel) attributes["gen_ai.response.model"] = e.responseModel;
    if (e.provider) attributes["switchyard.provider"] = e.provider;
    // What the answering upstream produced goes on its attempt's span too.
    const produced: Attributes = {};
    if (e.finishReason) produced["gen_ai.response.finish_reasons"] = [e.finishReason];
    if (e.usage) {
      produced["gen_ai.usage.input_tokens"] = e.usage.promptTokens;
      produced["gen_ai.usage.output_tokens"] = e.usage.completionTokens;
    }
    this.span.setAttributes({ ...attributes, ...produced });
    if (this.answering) {
      this.answering.setAttributes(produced);
      if (e.error) fail(this.answering, e.error);
      this.answering.end();
    }
    if (e.error) {
      // A refusal (4xx) is the client's to fix, not the gateway's failure: named, not an error status.
      if (e.status >= 500 || e.status < 400) fail(this.span, e.error);
      else this.span.setAttribute("error.type", e.error.kind);
    }
    this.span.end();
  }
}

export interface AttemptTrace {
  /** This attempt answers: its span ends with the request, carrying the usage. */
  answered(): void;
  failed(err: unknown): void;
}

function fail(span: Span, err: unknown): void {
  const kind = (err as Partial<GatewayError> | undefined)?.kind;
  span.setAttribute("error.type", kind ?? (err instanceof Error ? err.name : "error"));
  // The kind, not the message: an upstream's message may quote the prompt.
  span.setStatus({ code: SpanStatusCode.ERROR, message: kind });
}
