/**
 * The /events stream for the browser, as Server-Sent Events. This server holds the socket.io
 * connection to the control plane's /events namespace (authenticated with the session's
 * token) and passes its events on in batches, at most four a second, so a busy cluster does
 * not flood the page. The stream ends when either side goes away; the page reconnects.
 */
import { io, type Socket } from 'socket.io-client';
import { apiUrl, errorResponse, sessionToken } from '@/lib/server';

export const dynamic = 'force-dynamic';

const FLUSH_MS = 250;
const PING_MS = 15_000;
/** Beyond this many events in one batch the page is told to reload its data instead. */
const MAX_BATCH = 2_000;

export async function GET(request: Request): Promise<Response> {
  const token = await sessionToken();
  if (!token) return errorResponse(401, 'AUTH_TOKEN_MISSING', 'sign in to the dashboard first');
  // The stream is the leader's: a standby refuses with NOT_LEADER and names it.
  let base = apiUrl();
  let socket = await connectEvents(base, token);
  if (socket.failure === 'NOT_LEADER' && socket.leader) {
    base = socket.leader;
    socket = await connectEvents(base, token);
  }
  const { failure } = socket;
  if (failure)
    return failure.startsWith('AUTH_')
      ? errorResponse(401, failure, 'the session token was refused')
      : errorResponse(502, 'CONTROL_PLANE_UNREACHABLE', `cannot reach the control plane's event stream at ${base}`);
  return streamEvents(socket.socket, request);
}

/** Connects to a replica's /events; a refusal gives its code (and, from a standby, the leader's URL). */
async function connectEvents(base: string, token: string): Promise<{ socket: Socket; failure: string | null; leader: string | null }> {
  const socket = io(`${base}/events`, {
    auth: { token },
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    timeout: 5_000,
  });
  const refusal = await new Promise<{ failure: string | null; leader: string | null }>((resolve) => {
    socket.once('connect', () => resolve({ failure: null, leader: null }));
    socket.once('connect_error', (err: Error & { data?: { code?: string; leader?: string | null } }) =>
      resolve({ failure: err.data?.code ?? err.message, leader: err.data?.leader ?? null }),
    );
  });
  if (refusal.failure) socket.close();
  return { socket, ...refusal };
}

/** The stream of a connected /events socket, as Server-Sent Events. */
function streamEvents(socket: Socket, request: Request): Response {
  const encoder = new TextEncoder();
  let timers: NodeJS.Timeout[] = [];
  const stop = () => {
    timers.forEach(clearInterval);
    timers = [];
    socket.close();
  };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const close = () => {
        if (!open) return;
        open = false;
        stop();
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      const send = (text: string) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          close();
        }
      };
      let batch: Array<{ type: string; data: unknown }> = [];
      let overflow = false;
      socket.onAny((type: string, data: unknown) => {
        if (batch.length < MAX_BATCH) batch.push({ type, data });
        else overflow = true;
      });
      send(`retry: 2000\n\nevent: ready\ndata: {}\n\n`);
      timers.push(
        setInterval(() => {
          if (overflow) send(`event: overflow\ndata: {}\n\n`);
          else if (batch.length) send(`data: ${JSON.stringify(batch)}\n\n`);
          batch = [];
          overflow = false;
        }, FLUSH_MS),
        setInterval(() => send(': ping\n\n'), PING_MS),
      );
      socket.on('disconnect', close);
      request.signal.addEventListener('abort', close);
    },
    cancel: stop,
  });
  return new Response(stream, {
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store, no-transform', 'x-accel-buffering': 'no' },
  });
}
