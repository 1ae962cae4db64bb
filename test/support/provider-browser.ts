/**
 * A browser at a provider, for tests that drive a federated sign-in without chromium: the
 * provider's redirects and interaction pages followed with its own cookies kept, until it sends
 * the browser back to passlane's callback (a URL under `callbackPrefix`). Returns the request the
 * browser would then make: a GET of that URL, or the form post of `response_mode=form_post`.
 */
export interface CallbackRequest {
  method: 'GET' | 'POST';
  url: URL;
  /** The posted form (`form_post`); absent for a GET. */
  form?: URLSearchParams;
}

export async function throughProvider(location: string, callbackPrefix: string): Promise<CallbackRequest> {
  const jar = new Map<string, string>();
  let url = new URL(location);
  for (let hop = 0; hop < 20; hop++) {
    const response = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') } });
    for (const set of response.headers.getSetCookie()) {
      const [pair] = set.split(';');
      const [name, ...value] = pair!.split('=');
      jar.set(name!.trim(), value.join('='));
    }
    if (response.status >= 300 && response.status < 400) {
      url = new URL(response.headers.get('location')!, url);
      if (url.href.startsWith(callbackPrefix)) return { method: 'GET', url };
      continue;
    }
    const html = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (response.status === 200 && action !== undefined) {
      const form = new URLSearchParams();
      for (const match of html.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) form.set(decodeEntities(match[1]!), decodeEntities(match[2]!));
      return { method: 'POST', url: new URL(decodeEntities(action)), form };
    }
    throw new Error(`the provider answered ${response.status}: ${html.slice(0, 300)}`);
  }
  throw new Error('too many redirects at the provider');
}

function decodeEntities(text: string): string {
  return text.replaceAll('&amp;', '&').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&#x2F;', '/').replaceAll('&#x3D;', '=');
}
