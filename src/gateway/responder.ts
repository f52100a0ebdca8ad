// How the pipeline answers, without knowing the HTTP framework behind it.

export type HeaderMap = Record<string, string>;

export interface Responder {
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  json(status: number, headers: HeaderMap, body: unknown): void;
  /** A body that is already JSON text (a relayed answer); with `latin1`, its bytes one per character. */
  jsonText(status: number, headers: HeaderMap, text: string, latin1?: boolean): void;
  startStream(status: number, headers: HeaderMap): void;
  /**
   * Writes a piece of the stream (a string as UTF-8, or with `latin1` one byte per character);
   * resolves when the socket can take more (backpressure).
   */
  write(chunk: string | Buffer, latin1?: boolean): Promise<void> | undefined;
  end(): void;
}
