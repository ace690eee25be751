/**
 * The raw ADS client tests and examples use, kept under this name for `mock-istiod/testing`.
 * It lives in xds/ (it has no project imports), so that `generate` can ask istiod with it too.
 */
export * from '../xds/ads-client.js';
