/**
 * Which language the CLI and the demo speak: `--lang` first, then the locale variables in the
 * C library's order (LC_ALL, LC_MESSAGES, LANG), English by default.
 */
import { describe, expect, it } from 'vitest';
import { isMockIstiodError } from '../../src/util/errors.js';
import { langFromEnv, langFromLocale, resolveLang } from '../../src/util/lang.js';

describe('langFromLocale', () => {
  it.each([
    ['ko', 'ko'],
    ['ko_KR', 'ko'],
    ['ko_KR.UTF-8', 'ko'],
    ['ko_KR.eucKR', 'ko'],
    ['ko-KR', 'ko'],
    ['en_US.UTF-8', 'en'],
    ['C.UTF-8', 'en'],
    ['POSIX', 'en'],
    ['kok_IN', 'en'],
  ])('%s → %s', (locale, lang) => {
    expect(langFromLocale(locale)).toBe(lang);
  });
});

describe('langFromEnv', () => {
  it('is English with no locale variable', () => {
    expect(langFromEnv({})).toBe('en');
  });

  it('reads LANG', () => {
    expect(langFromEnv({ LANG: 'ko_KR.UTF-8' })).toBe('ko');
  });

  it('lets LC_MESSAGES win over LANG, and LC_ALL over both', () => {
    expect(langFromEnv({ LANG: 'en_US.UTF-8', LC_MESSAGES: 'ko_KR.UTF-8' })).toBe('ko');
    expect(langFromEnv({ LANG: 'ko_KR.UTF-8', LC_MESSAGES: 'C' })).toBe('en');
    expect(langFromEnv({ LANG: 'ko_KR.UTF-8', LC_ALL: 'en_US.UTF-8' })).toBe('en');
    expect(langFromEnv({ LC_ALL: 'ko_KR.UTF-8', LC_MESSAGES: 'en_US.UTF-8' })).toBe('ko');
  });

  it('skips a variable set to the empty string, as the C library does', () => {
    expect(langFromEnv({ LC_ALL: '', LANG: 'ko_KR.UTF-8' })).toBe('ko');
  });
});

describe('resolveLang', () => {
  it('takes --lang over the environment', () => {
    expect(resolveLang('en', { LANG: 'ko_KR.UTF-8' })).toBe('en');
    expect(resolveLang('ko', { LC_ALL: 'C' })).toBe('ko');
    expect(resolveLang(undefined, { LANG: 'ko_KR.UTF-8' })).toBe('ko');
  });

  it('refuses any other --lang in one line naming the choices', () => {
    let error: unknown;
    try {
      resolveLang('fr', {});
    } catch (err) {
      error = err;
    }
    expect(isMockIstiodError(error, 'USAGE')).toBe(true);
    expect((error as Error).message).toBe('--lang: expected en or ko, got "fr"');
  });
});
