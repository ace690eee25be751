/** A subcommand of `mock-istiod`: one line for the usage, and what runs it. */
export interface Command {
  summary: string;
  /** Resolves with the exit code. */
  run(argv: string[], env: NodeJS.ProcessEnv): Promise<number>;
}
