/**
 * Sandbox files (Mesos's /files/browse and /files/read), asked of an agent by the control plane
 * on /agents and answered in the acknowledgement:
 *
 *   control plane -> agent:
 *     'filesBrowse'   FilesBrowse  -> { entries, truncated }   (a directory's entries, or a file's own)
 *     'filesRead'     FilesRead    -> { data, offset, size }   (base64 bytes from offset)
 *
 * Paths are relative to the sandbox ('' or '/' is the sandbox itself); the agent refuses `..`
 * and anything that resolves outside the sandbox (symbolic links included) with
 * SANDBOX_PATH_INVALID, a missing file with SANDBOX_FILE_NOT_FOUND.
 */
import { z } from 'zod';
import { Id } from './common';

/** The longest path a request may name. */
export const SANDBOX_PATH_MAX = 4096;
/** The most bytes one read returns (a longer length is cut to it; the reader asks again from the next offset). */
export const FILES_READ_MAX = 1024 * 1024;
/** The most entries one browse returns (the rest is cut, `truncated` says so). */
export const FILES_BROWSE_MAX = 5000;

/** Whose sandbox: a task's; with `executorId`, its executor's (the task runs there). */
const SandboxRef = {
  frameworkId: Id,
  taskId: Id,
  executorId: Id.optional(),
};

const SandboxPath = z
  .string()
  .max(SANDBOX_PATH_MAX)
  .refine((p) => !p.includes('\0'), { message: 'a path has no NUL character' });

export const FilesBrowse = z.object({ ...SandboxRef, path: SandboxPath.default('') }).strict();
export type FilesBrowse = z.input<typeof FilesBrowse>;

/**
 * A read: `length` bytes (at most FILES_READ_MAX, the default) from `offset`; offset -1 reads
 * nothing and answers the file's size as the offset (where a follower starts), as Mesos does.
 */
export const FilesRead = z
  .object({
    ...SandboxRef,
    path: SandboxPath.refine((p) => p.replace(/^\/+/, '') !== '', { message: 'name a file in the sandbox' }),
    offset: z.number().int().min(-1).max(Number.MAX_SAFE_INTEGER).default(0),
    length: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  })
  .strict();
export type FilesRead = z.input<typeof FilesRead>;

/** One entry of a directory, as Mesos's /files/browse lists it (`path` relative to the sandbox). */
export const FileEntry = z
  .object({
    path: z.string().max(SANDBOX_PATH_MAX),
    type: z.enum(['file', 'directory', 'symlink', 'other']),
    size: z.number().int().min(0),
    /** Seconds since the epoch. */
    mtime: z.number(),
    /** As `ls -l` writes it, e.g. `-rw-r--r--`. */
    mode: z.string().max(10),
    nlink: z.number().int().min(0),
    uid: z.number().int().min(0),
    gid: z.number().int().min(0),
  })
  .strict();
export type FileEntry = z.infer<typeof FileEntry>;

export const FilesBrowseReply = z.object({ entries: z.array(FileEntry).max(FILES_BROWSE_MAX), truncated: z.boolean() }).strict();
export type FilesBrowseReply = z.infer<typeof FilesBrowseReply>;

export const FilesReadReply = z
  .object({
    /** The bytes read, base64. */
    data: z.string().max(Math.ceil(FILES_READ_MAX / 3) * 4),
    /** Where they start (with offset -1: the file's size). */
    offset: z.number().int().min(0),
    /** The file's size now: smaller than a follower's offset after the file was rotated (it starts again at 0). */
    size: z.number().int().min(0),
  })
  .strict();
export type FilesReadReply = z.infer<typeof FilesReadReply>;
