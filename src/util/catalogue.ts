/**
 * Message catalogues: one module per catalogue, `defineCatalogue(en, ko)`, with the same keys
 * in both languages. English fixes the keys and each message's shape; the Korean side must
 * have every key, no other, and the same shape (a missing or extra key, or a function taking
 * other values, is a type error). `test/unit/catalogues.test.ts` checks the same at run time,
 * and that no message is empty.
 */
import type { Lang } from './lang.js';

/** A message: a sentence, or a function of the values it names. */
export type Message = string | ((values: never) => string);

export type Messages = Readonly<Record<string, Message>>;

/** The Korean side's shape: English's keys, with `string` for every sentence. */
export type Translation<T extends Messages> = {
  readonly [K in keyof T]: T[K] extends string ? string : T[K];
};

export type Catalogue<T extends Messages> = Readonly<Record<Lang, Translation<T>>>;

export function defineCatalogue<T extends Messages>(en: T, ko: Translation<T>): Catalogue<T> {
  return Object.freeze({ en: en as Translation<T>, ko });
}
