/** A principal of the given kind and a token for it, created over REST as an admin would. */
export async function principal(
  api: { url: string; token: string },
  name: string,
  /** ADMIN, OPERATOR, VIEWER, FRAMEWORK or AGENT. */
  kind = 'FRAMEWORK',
): Promise<string> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(new URL(path, api.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`POST ${path}: expected HTTP 201, got ${res.status}: ${text}`);
    return JSON.parse(text) as unknown;
  };
  await post('/api/v1/principals', { name, kind });
  const issued = (await post(`/api/v1/principals/${encodeURIComponent(name)}/tokens`, { name: 'test' })) as { token: string };
  return issued.token;
}
