/**
 * `arbiter bench e2e --operator-stream`: a monitor on Mesos's operator API beside the run. It
 * SUBSCRIBEs (`POST /api/v1`, JSON, RecordIO) as the admin and notes when each task's RUNNING
 * reaches it; the bench compares that with when the task's framework saw it. A stream that keeps
 * up shows a small lag that does not grow from the first quarter of the run to the last.
 */
import * as http from 'node:http';
import { performance } from 'node:perf_hooks';
import { percentile } from './bench-process';

export interface OperatorStream {
  /** When each task's TASK_RUNNING arrived on the stream (performance.now()). */
  readonly runningAt: Map<string, number>;
  /** Resolves once SUBSCRIBED (the whole state) has arrived. */
  readonly subscribed: Promise<void>;
  close(): void;
}

export function followOperatorStream(url: string, token: string): OperatorStream {
  const runningAt = new Map<string, number>();
  let chunks: Buffer[] = [];
  let buffered = 0;
  let onSubscribed: () => void = () => undefined;
  let onFailed: (err: Error) => void = () => undefined;
  const subscribed = new Promise<void>((resolve, reject) => ([onSubscribed, onFailed] = [resolve, reject]));
  const onRecord = (record: Buffer) => {
    const event = JSON.parse(record.toString()) as {
      type: string;
      task_updated?: { state?: string; status?: { task_id?: { value: string } } };
    };
    if (event.type === 'SUBSCRIBED') onSubscribed();
    const id = event.task_updated?.status?.task_id?.value;
    if (event.type === 'TASK_UPDATED' && event.task_updated?.state === 'TASK_RUNNING' && id && !runningAt.has(id))
      runningAt.set(id, performance.now());
  };
  const body = JSON.stringify({ type: 'SUBSCRIBE' });
  const req = http.request(new URL('/api/v1', url), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
  });
  req.on('response', (res) => {
    if (res.statusCode !== 200) {
      onFailed(new Error(`SUBSCRIBE answered ${res.statusCode}`));
      return;
    }
    res.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      buffered += chunk.length;
      // RecordIO: "<length>\n<record>", records read as soon as they are whole.
      let data = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, buffered);
      for (;;) {
        const nl = data.indexOf(10);
        const length = nl < 0 ? NaN : Number(data.subarray(0, nl).toString());
        if (Number.isNaN(length) || data.length < nl + 1 + length) break;
        onRecord(data.subarray(nl + 1, nl + 1 + length));
        data = data.subarray(nl + 1 + length);
      }
      [chunks, buffered] = [data.length ? [data] : [], data.length];
    });
  });
  req.on('error', (err) => onFailed(err));
  req.end(body);
  return { runningAt, subscribed, close: () => req.destroy() };
}

/**
 * The stream's lag behind the frameworks (ms; each task's RUNNING on the stream less at its
 * framework) over the tasks the frameworks saw, in the order they saw them: p50 and p99, the p50
 * of the first and of the last quarter (a growing lag: the stream falls behind), and how many
 * never reached the stream.
 */
export function streamLag(frameworkSaw: Map<string, number>, stream: OperatorStream) {
  const seen = [...frameworkSaw].sort((a, b) => a[1] - b[1]);
  const lags = seen.flatMap(([id, at]) => {
    const on = stream.runningAt.get(id);
    return on === undefined ? [] : [on - at];
  });
  const p = (xs: number[], q: number) =>
    Math.round(
      percentile(
        [...xs].sort((a, b) => a - b),
        q,
      ) * 10,
    ) / 10;
  const quarter = Math.max(1, Math.floor(lags.length / 4));
  return {
    tasks: seen.length,
    missed: seen.length - lags.length,
    lagP50Ms: p(lags, 50),
    lagP99Ms: p(lags, 99),
    firstQuarterP50Ms: p(lags.slice(0, quarter), 50),
    lastQuarterP50Ms: p(lags.slice(-quarter), 50),
  };
}
