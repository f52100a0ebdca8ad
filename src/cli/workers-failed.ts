// Its own module so that the command line can recognise it without loading the cluster and the
// server (commands.ts loads those only for `serve`).

/** A worker of the first start died before listening: `serve` fails as the single process would. */
export class WorkersFailedError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number) {
    super(message);
    this.exitCode = exitCode;
  }
}
