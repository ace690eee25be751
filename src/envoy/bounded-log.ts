/**
 * Keeps the most recent output of a child process, up to a size limit, so that a long-running
 * Envoy with a chatty log level cannot grow memory without bound.
 */
export class BoundedLog {
  readonly #limitChars: number;
  #chunks: string[] = [];
  #size = 0;
  #dropped = false;

  constructor(limitChars: number) {
    this.#limitChars = Math.max(1, limitChars);
  }

  append(chunk: string): void {
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    while (this.#size > this.#limitChars && this.#chunks.length > 0) {
      const first = this.#chunks[0] ?? '';
      const excess = this.#size - this.#limitChars;
      if (first.length > excess) {
        this.#chunks[0] = first.slice(excess);
        this.#size -= excess;
      } else {
        this.#chunks.shift();
        this.#size -= first.length;
      }
      this.#dropped = true;
    }
  }

  /** Everything kept, with a marker line first when older output was dropped. */
  text(): string {
    const kept = this.#chunks.join('');
    return this.#dropped ? `[earlier output dropped]\n${kept}` : kept;
  }

  /** The last `count` non-empty lines, each cut to `maxLineChars` (Envoy's can be huge). */
  tail(count: number, maxLineChars = 300): string {
    const lines = this.#chunks.join('').split('\n');
    return lines
      .filter((line) => line.trim() !== '')
      .slice(-count)
      .map((line) => (line.length > maxLineChars ? `${line.slice(0, maxLineChars)}…` : line))
      .join('\n');
  }
}
