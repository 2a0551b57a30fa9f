/**
 * The control plane's questions about sandbox files ('filesBrowse', 'filesRead' on /agents),
 * answered in their acknowledgements. The sandbox is found from the task (and its executor's
 * id, when it runs under one: then the executor's sandbox, where its tasks work); the control
 * plane has checked who may ask.
 */
import * as fs from 'node:fs';
import { FilesBrowse, type FilesBrowseReply, FilesRead, type FilesReadReply, parseMessage, type Reply } from '@arbiter/contracts';
import { browse, FilesError, read } from './sandbox-files';

/** Where a task's sandbox is (whether or not it exists). */
export type SandboxLocator = (ref: { frameworkId: string; taskId: string; executorId?: string }) => string;

export class Files {
  constructor(
    private readonly locate: SandboxLocator,
    private readonly onError: (message: string, err: Error) => void = () => undefined,
  ) {}

  browse(payload: unknown, ack?: (r: Reply<FilesBrowseReply>) => void): void {
    const msg = parseMessage(FilesBrowse, payload);
    if (!msg.ok) return ack?.({ ok: false, error: msg.error });
    ack?.(this.answer(msg.value, (sandbox) => browse(sandbox, msg.value.path)));
  }

  read(payload: unknown, ack?: (r: Reply<FilesReadReply>) => void): void {
    const msg = parseMessage(FilesRead, payload);
    if (!msg.ok) return ack?.({ ok: false, error: msg.error });
    const { path, offset, length } = msg.value;
    ack?.(this.answer(msg.value, (sandbox) => read(sandbox, path, offset, length)));
  }

  private answer<T extends object>(
    ref: { frameworkId: string; taskId: string; executorId?: string },
    work: (sandbox: string) => T,
  ): Reply<T> {
    const sandbox = this.locate(ref);
    if (!fs.existsSync(sandbox))
      return {
        ok: false,
        error: {
          code: 'SANDBOX_FILE_NOT_FOUND',
          // Most often asked of a task ended long ago: say where its sandbox went.
          message: `task ${ref.taskId} has no sandbox on this agent (an ended task's sandbox is removed after the agent's GC delay)`,
        },
      };
    try {
      return { ok: true, ...work(sandbox) };
    } catch (err) {
      if (err instanceof FilesError) return { ok: false, error: { code: err.code, message: err.message } };
      this.onError('cannot answer a sandbox files request', err as Error);
      return { ok: false, error: { code: 'INTERNAL_ERROR', message: `the agent could not read the sandbox: ${(err as Error).message}` } };
    }
  }
}
