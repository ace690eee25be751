/**
 * The languages the CLI and the classroom demo speak: English (the default) and Korean, the
 * language of the course the project grew out of. `--lang` wins over the environment; the
 * environment is read the way the C library picks the language of messages: the first of
 * `LC_ALL`, `LC_MESSAGES` and `LANG` that is set and not empty decides.
 */
import { MockIstiodError } from './errors.js';

export const LANGS = ['en', 'ko'] as const;
export type Lang = (typeof LANGS)[number];
export const DEFAULT_LANG: Lang = 'en';

/** The variables read, in the order the C library reads them for messages. */
const LOCALE_VARIABLES = ['LC_ALL', 'LC_MESSAGES', 'LANG'] as const;

export function isLang(value: unknown): value is Lang {
  return (LANGS as readonly unknown[]).includes(value);
}

/** `ko`, `ko_KR`, `ko_KR.UTF-8`, `ko-KR` → `ko`; anything else (`C`, `en_US.UTF-8`) → `en`. */
export function langFromLocale(locale: string): Lang {
  return /^ko([_.@-]|$)/i.test(locale) ? 'ko' : DEFAULT_LANG;
}

/** The language the environment asks for (English when no variable says otherwise). */
export function langFromEnv(env: Readonly<Record<string, string | undefined>>): Lang {
  for (const name of LOCALE_VARIABLES) {
    const value = env[name];
    if (value) return langFromLocale(value);
  }
  return DEFAULT_LANG;
}

/** `--lang` if given (checked), else the environment's. */
export function resolveLang(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Lang {
  if (flag === undefined) return langFromEnv(env);
  if (isLang(flag)) return flag;
  throw new MockIstiodError('USAGE', `--lang: expected ${LANGS.join(' or ')}, got "${flag}"`);
}
