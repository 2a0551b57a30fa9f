'use strict';
/**
 * Mesos's RecordIO, as its v1 HTTP APIs stream events: each record is its length in bytes, a
 * newline, then that many bytes (here JSON). `events(response)` yields the records of a fetch
 * response's body as parsed objects.
 */
async function* events(response) {
  let buffer = Buffer.alloc(0);
  for await (const chunk of response.body) {
    buffer = Buffer.concat([buffer, Buffer.from(chunk)]);
    for (;;) {
      const newline = buffer.indexOf(0x0a);
      if (newline < 0) break;
      const length = Number(buffer.subarray(0, newline).toString('ascii'));
      if (buffer.length < newline + 1 + length) break;
      yield JSON.parse(buffer.subarray(newline + 1, newline + 1 + length).toString('utf8'));
      buffer = buffer.subarray(newline + 1 + length);
    }
  }
}

/**
 * POSTs a JSON call; rejects with the response's text unless it is 2xx, and with the URL and the
 * cause when nothing answers (fetch says only "fetch failed").
 */
async function post(url, headers, body) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...headers },
    body: JSON.stringify(body),
  }).catch((err) => {
    throw new Error(`${body.type}: no answer from ${url}${err.cause ? ` (${err.cause.message})` : `: ${err.message}`}`);
  });
  if (!response.ok) throw new Error(`${body.type}: ${response.status} ${await response.text()}`);
  return response;
}

module.exports = { events, post };
