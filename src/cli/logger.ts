/**
 * The CLI's root logger: human-readable lines in a terminal, JSON lines otherwise (for
 * files and log collectors). Libraries never create one; they are handed this.
 */
import pino, { type Logger } from 'pino';
import type pinoPretty from 'pino-pretty';
import { lazyRequire } from '../util/lazy-require.js';
import { boundExitFlush, ignoreClosedStdio } from './log-exit.js';

/** Loaded only for a terminal (or --log-format pretty): JSON logging does not pay for it. */
const pretty = lazyRequire<typeof pinoPretty>(import.meta.url, 'pino-pretty');

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function createCliLogger(
  level: LogLevel,
  format: 'pretty' | 'json' | 'auto' = 'auto',
): Logger {
  const usePretty = format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
  ignoreClosedStdio();
  if (!usePretty) {
    const log = pino({ level });
    boundExitFlush(log);
    return log;
  }
  const stream = pretty()({
    colorize: process.stdout.isTTY === true,
    sync: true,
    translateTime: 'HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
  });
  return pino({ level }, stream);
}
