/**
 * The subcommands of `mock-istiod`, in one table: a command adds one line here.
 */
import { serve } from './serve.js';

export interface Command {
  summary: string;
  run(argv: string[], env: NodeJS.ProcessEnv): Promise<number>;
}

export const COMMANDS: Record<string, Command> = {
  serve: { summary: "serve xDS like istiod, with the sidecar lab's resources", run: serve },
};
