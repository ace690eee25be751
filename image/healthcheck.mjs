// The image's HEALTHCHECK: GET /ready on the control API, with the token when one is set.
// Exits 0 when it answers 200, 1 otherwise (within the check's timeout).
const port = process.env.MOCK_ISTIOD_CONTROL_PORT || '15014';
const token = process.env.MOCK_ISTIOD_CONTROL_TOKEN;
const headers = token ? { authorization: `Bearer ${token}` } : {};
try {
  const res = await fetch(`http://127.0.0.1:${port}/ready`, {
    headers,
    signal: AbortSignal.timeout(2000),
  });
  process.exit(res.status === 200 ? 0 : 1);
} catch {
  process.exit(1);
}
