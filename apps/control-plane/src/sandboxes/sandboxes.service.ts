/**
 * A task's sandbox files, relayed to the agent that ran it (Mesos's /files/browse and
 * /files/read): who may ask is decided here, where the path leads is decided by the agent,
 * which confines it to the sandbox. Needs the view_tasks ACL and the access_sandboxes ACL on
 * the task's framework user; the agent must be connected to this control plane (the leader).
 */
import { FilesBrowseReply, FilesReadReply, type Reply } from '@arbiter/contracts';
import type { z } from 'zod';
import { Injectable } from '@nestjs/common';
import { AclsService } from '../acls/acls.service';
import type { Actor } from '../auth/auth.actor';
import { ArbiterException } from '../errors/errors.exception';
import { Outbox } from '../master/outbox';
import type { TaskEntity } from '../tasks/task.entity';
import { TasksErrorCode } from '../tasks/tasks.errors';
import { TaskListRepository } from '../tasks/tasks.repository';
import type { FilesBrowseDto, FilesReadDto } from './sandboxes.dto';
import { SandboxesErrorCode } from './sandboxes.errors';

const UUID = /^[0-9a-f-]{36}$/i;
/** A sandbox path as a Mesos agent names it (the run id is not kept: any stands for the latest). */
const MESOS_PATH = /^\/*frameworks\/([^/]+)\/executors\/([^/]+)\/runs\/([^/]+)(?:\/+(.*))?$/;
/** The agent's refusals, answered with the same codes. */
const AGENT_CODES = new Map<string, SandboxesErrorCode>(Object.values(SandboxesErrorCode).map((c) => [c, c]));
/** How long an agent has to answer. */
const AGENT_ANSWER_MS = 10_000;

/** A task's place on its agent: its sandbox (its executor's, when one runs it) and its logs there. */
interface SandboxOf {
  agentId: string;
  ref: { frameworkId: string; taskId: string; executorId?: string };
  logs: { stdout: string; stderr: string };
}

@Injectable()
export class SandboxesService {
  constructor(
    private readonly tasks: TaskListRepository,
    private readonly acls: AclsService,
    private readonly outbox: Outbox,
  ) {}

  async browse(id: string, path: string | undefined, actor: Actor): Promise<FilesBrowseDto> {
    const at = await this.sandboxOf(id, actor);
    const reply = await this.outbox.ask(at.agentId, 'filesBrowse', { ...at.ref, path: path ?? '' }, AGENT_ANSWER_MS);
    return { ...this.answer(FilesBrowseReply, reply, at), logs: at.logs };
  }

  async read(
    id: string,
    q: { path: string; offset: number; length?: number; encoding?: 'utf8' | 'base64' },
    actor: Actor,
  ): Promise<FilesReadDto> {
    const at = await this.sandboxOf(id, actor);
    const bytes = await this.readBytes(at, q.path, q.offset, q.length);
    return { data: bytes.data.toString(q.encoding ?? 'utf8'), offset: bytes.offset, length: bytes.data.length, size: bytes.size };
  }

  /**
   * A whole file (as long as it was when the download started), chunk by chunk as `write`
   * takes them: the first chunk is read, and any refusal thrown, before `start`.
   */
  async download(id: string, path: string, actor: Actor, out: { start(): void; write(chunk: Buffer): Promise<void> }): Promise<void> {
    const at = await this.sandboxOf(id, actor);
    let chunk = await this.readBytes(at, path, 0);
    const end = chunk.size;
    out.start();
    for (;;) {
      if (chunk.data.length) await out.write(chunk.data.subarray(0, Math.max(0, end - chunk.offset)));
      const next = chunk.offset + chunk.data.length;
      if (chunk.data.length === 0 || next >= end) return;
      chunk = await this.readBytes(at, path, next);
    }
  }

  private async readBytes(
    at: SandboxOf,
    path: string,
    offset: number,
    length?: number,
  ): Promise<{ data: Buffer; offset: number; size: number }> {
    const reply = await this.outbox.ask(
      at.agentId,
      'filesRead',
      { ...at.ref, path, offset, ...(length !== undefined ? { length } : {}) },
      AGENT_ANSWER_MS,
    );
    const r = this.answer(FilesReadReply, reply, at);
    return { data: Buffer.from(r.data, 'base64'), offset: r.offset, size: r.size };
  }

  /**
   * Mesos's /files/browse on an agent's path (`/frameworks/F/executors/E/runs/latest[/...]`):
   * the entries with Mesos's fields, their paths in the same form (under the run's folder).
   */
  async mesosBrowse(mesosPath: string, actor: Actor): Promise<Array<Record<string, unknown>>> {
    const { base, rest, at } = await this.mesosPlace(mesosPath, actor);
    const reply = await this.outbox.ask(at.agentId, 'filesBrowse', { ...at.ref, path: rest }, AGENT_ANSWER_MS);
    return this.answer(FilesBrowseReply, reply, at).entries.map((e) => ({
      path: `${base}/${e.path}`,
      nlink: e.nlink,
      size: e.size,
      mtime: e.mtime,
      mode: e.mode,
      uid: String(e.uid),
      gid: String(e.gid),
    }));
  }

  /** Mesos's /files/read on an agent's path: `{ data, offset }`, offset -1 (the default) answering the size. */
  async mesosRead(mesosPath: string, offset: number, length: number | undefined, actor: Actor): Promise<{ data: string; offset: number }> {
    const { rest, at } = await this.mesosPlace(mesosPath, actor);
    const bytes = await this.readBytes(at, rest, offset, length);
    return { data: bytes.data.toString('utf8'), offset: bytes.offset };
  }

  private async mesosPlace(mesosPath: string, actor: Actor): Promise<{ base: string; rest: string; at: SandboxOf }> {
    const m = MESOS_PATH.exec(mesosPath);
    if (!m)
      throw new ArbiterException(
        SandboxesErrorCode.SANDBOX_PATH_INVALID,
        `'${mesosPath}' is not a sandbox path: /frameworks/FRAMEWORK_ID/executors/EXECUTOR_ID/runs/latest[/PATH]`,
        { path: mesosPath },
      );
    const [, frameworkId, executorId, run, rest] = m as unknown as [string, string, string, string, string | undefined];
    const row = await this.tasks.findByTaskOrExecutor(frameworkId, executorId);
    if (!row)
      throw new ArbiterException(TasksErrorCode.TASK_NOT_FOUND, `framework ${frameworkId} has no task or executor '${executorId}'`, {
        frameworkId,
        executorId,
      });
    const at = await this.authorized(row, row.id, actor);
    return { base: `/frameworks/${frameworkId}/executors/${executorId}/runs/${run}`, rest: rest ?? '', at };
  }

  /** The task, once the actor may see it and its sandbox. */
  private async sandboxOf(id: string, actor: Actor): Promise<SandboxOf> {
    const row = UUID.test(id) ? await this.tasks.findById(id) : null;
    if (!row) throw new ArbiterException(TasksErrorCode.TASK_NOT_FOUND, `no task with id '${id}'; GET /api/v1/tasks lists them`, { id });
    return this.authorized(row, id, actor);
  }

  private async authorized(row: TaskEntity, id: string, actor: Actor): Promise<SandboxOf> {
    const { user } = await this.tasks.frameworkOwner(row.frameworkId);
    await this.acls.authorize(actor, 'view_tasks', user, `view task ${id}`);
    await this.acls.authorize(actor, 'access_sandboxes', user, `read the sandbox of task ${id}`);
    return placeOf(row);
  }

  /** The agent's answer, checked against its schema; its refusal as the same code; no answer (or a malformed one) as SANDBOX_UNREACHABLE. */
  private answer<S extends z.ZodType<object>>(schema: S, reply: Reply | undefined, at: SandboxOf): z.infer<S> {
    const unreachable = (why: string) =>
      new ArbiterException(SandboxesErrorCode.SANDBOX_UNREACHABLE, `agent ${at.agentId} ${why}; try again once it is back`, {
        agentId: at.agentId,
      });
    if (!reply) throw unreachable('is not connected to this control plane or did not answer');
    if (reply.ok) {
      const { ok: _ok, ...rest } = reply;
      const parsed = schema.safeParse(rest);
      if (!parsed.success) throw unreachable('answered with a malformed reply');
      return parsed.data;
    }
    const code = AGENT_CODES.get(reply.error.code) ?? SandboxesErrorCode.SANDBOX_UNREACHABLE;
    const message =
      code === SandboxesErrorCode.SANDBOX_UNREACHABLE
        ? `agent ${at.agentId} could not answer: ${reply.error.message}`
        : reply.error.message;
    throw new ArbiterException(code, message, { agentId: at.agentId });
  }
}

/** Where a task's sandbox and logs are: its own, or under its executor's (a task group's task in `tasks/<id>`). */
function placeOf(row: TaskEntity): SandboxOf {
  const stored = (row.command ?? {}) as { executor?: { executorId?: string }; group?: string };
  const executorId = stored.executor?.executorId;
  const dir = stored.group !== undefined ? `tasks/${row.taskId}/` : '';
  return {
    agentId: row.agentId,
    ref: { frameworkId: row.frameworkId, taskId: row.taskId, ...(executorId ? { executorId } : {}) },
    logs: { stdout: `${dir}stdout`, stderr: `${dir}stderr` },
  };
}
