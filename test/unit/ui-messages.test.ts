/**
 * The live page's message catalogue: every key in both languages, none empty, the same
 * `{placeholders}` in both; and how the page picks its language.
 */
import { describe, expect, it } from 'vitest';
import { LANGS, MESSAGES, format, pickLang } from '../../ui/src/messages.js';

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('the page’s messages', () => {
  it('has every key in every language, never empty, with the same placeholders', () => {
    const keys = Object.keys(MESSAGES.en).sort();
    expect(keys.length).toBeGreaterThan(20);
    for (const lang of LANGS) {
      expect(Object.keys(MESSAGES[lang]).sort(), lang).toEqual(keys);
      for (const key of keys) {
        const text = MESSAGES[lang][key as keyof typeof MESSAGES.en];
        expect(text.trim(), `${lang} ${key}`).not.toBe('');
        expect(placeholders(text), `${lang} ${key}`).toEqual(
          placeholders(MESSAGES.en[key as keyof typeof MESSAGES.en]),
        );
      }
    }
  });

  it('is really translated: Korean text differs from English for most keys', () => {
    const keys = Object.keys(MESSAGES.en) as (keyof typeof MESSAGES.en)[];
    const same = keys.filter((k) => MESSAGES.ko[k] === MESSAGES.en[k]);
    // Only Envoy's and Istio's own words (READY, server.state, /ready, ACK, NACK…) stay.
    expect(same.length).toBeLessThan(keys.length / 5);
    expect(MESSAGES.ko['pods.title']).toBe('파드');
  });

  it('fills placeholders', () => {
    expect(format('en', 'controls.failed', { action: 'Release', error: '401' })).toBe(
      'Release failed: 401',
    );
    expect(format('ko', 'seq.resources', { count: 2 })).toBe('리소스 2개');
  });

  it('picks ?lang= first, then the mock’s --lang ko, then the browser, else English', () => {
    expect(pickLang('?lang=ko', ['en-US'])).toBe('ko');
    expect(pickLang('?lang=en', ['ko-KR'], 'ko')).toBe('en');
    expect(pickLang('', ['en-US'], 'ko')).toBe('ko');
    expect(pickLang('', ['ko-KR', 'en'])).toBe('ko');
    expect(pickLang('', ['ko'])).toBe('ko');
    expect(pickLang('?lang=fr', ['de-DE'])).toBe('en');
    expect(pickLang('', [])).toBe('en');
  });
});
