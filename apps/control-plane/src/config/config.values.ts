/**
 * The value types of the configuration's settings: each parses one setting's text with zod and
 * says in its message what is wrong (config.schema.ts lists the settings).
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { aclsToDocument, parseAcls } from './acls.rules';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A whole number in a range, written in digits. */
export const integer = (min: number, max: number) => {
  const message = `must be a whole number from ${min} to ${max}`;
  return z.string().trim().regex(/^\d+$/, message).transform(Number).pipe(z.number().min(min, message).max(max, message));
};

/** A number in a range (decimals allowed). */
export const numberIn = (min: number, max: number, message = `must be a number from ${min} to ${max}`) =>
  z
    .string()
    .trim()
    .min(1, message)
    .transform(Number)
    .pipe(z.number({ error: message }).min(min, message).max(max, message));

export const databaseUrl = z.string().superRefine((raw, ctx) => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be a URL such as postgres://user:password@host:5432/database' });
    return;
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    ctx.addIssue({ code: 'custom', message: `must use the postgres:// scheme, not ${url.protocol}//` });
  else if (!url.hostname) ctx.addIssue({ code: 'custom', message: 'must name a host, e.g. postgres://user@127.0.0.1:5432/arbiter' });
});

/** An http(s) URL with a host, without a trailing slash. */
export const httpUrl = z.string().transform((raw, ctx) => {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be a URL such as http://cp-1.example.com:8080' });
    return z.NEVER;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    ctx.addIssue({ code: 'custom', message: `must use http:// or https://, not ${url.protocol}//` });
    return z.NEVER;
  }
  return url.toString().replace(/\/+$/, '');
});

/** Why a certificate and a key do not go together (unreadable, or not a pair), or undefined. */
export function certificateKeyMismatch(certPem: string, keyPem: string): string | undefined {
  try {
    const cert = new crypto.X509Certificate(certPem);
    if (!cert.checkPrivateKey(crypto.createPrivateKey(keyPem))) return "the key is not the certificate's (they are not a pair)";
    return undefined;
  } catch (err) {
    return `cannot read the certificate and key: ${(err as Error).message}`;
  }
}

/** A PEM file, read when the configuration loads. */
export const pemFile = (label: string) =>
  z.string().transform((raw, ctx) => {
    const file = path.resolve(raw.trim());
    let pem: string;
    try {
      pem = fs.readFileSync(file, 'utf8');
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `cannot read ${file}: ${(err as Error).message}` });
      return z.NEVER;
    }
    if (!pem.includes(label)) {
      ctx.addIssue({ code: 'custom', message: `${file} holds no PEM ${label}` });
      return z.NEVER;
    }
    return { file, pem };
  });

/** A file of Mesos-format ACLs, read and checked when the configuration loads. */
export const aclsFile = z.string().transform((raw, ctx) => {
  const file = path.resolve(raw.trim());
  let document: unknown;
  try {
    document = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `cannot read ACLs from ${file}: ${(err as Error).message}` });
    return z.NEVER;
  }
  const parsed = parseAcls(document);
  if (!parsed.ok) {
    ctx.addIssue({ code: 'custom', message: `invalid ACLs in ${file}: ${parsed.errors.slice(0, 5).join('; ')}` });
    return z.NEVER;
  }
  return { file, document: aclsToDocument(parsed.acls) };
});

/** A scalar resource name, as Mesos writes them (cpus, mem, disk, gpus, ...). */
const RESOURCE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;
/** Mesos's --min_allocatable_resources text: alternatives split by '|', each 'name:quantity' split by ';'. */
export const minAllocatable = z.string().transform((raw, ctx) => {
  const message = "must read like 'cpus:0.01|mem:32': alternatives split by '|', each name:quantity split by ';', quantities above 0";
  const alternatives: Array<Record<string, number>> = [];
  for (const alternative of raw.split('|')) {
    const quantities: Record<string, number> = {};
    for (const part of alternative.split(';').filter((p) => p.trim() !== '')) {
      const [name, value, ...rest] = part.split(':').map((s) => s.trim());
      const n = Number(value);
      if (rest.length || !RESOURCE_NAME.test(name) || !value || !Number.isFinite(n) || n <= 0) {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      quantities[name] = n;
    }
    if (!Object.keys(quantities).length) {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }
    alternatives.push(quantities);
  }
  return alternatives;
});
/** Comma-separated resource names; empty for none. */
export const resourceNames = z.string().transform((raw, ctx) => {
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const bad = names.find((n) => !RESOURCE_NAME.test(n));
  if (bad !== undefined) {
    ctx.addIssue({ code: 'custom', message: `must be resource names split by commas, e.g. 'gpus' ('${bad}' is not one)` });
    return z.NEVER;
  }
  return [...new Set(names)];
});
/** true or false (also 1/0, yes/no). */
export const flag = z
  .string()
  .trim()
  .toLowerCase()
  .transform((raw, ctx) => {
    if (['true', '1', 'yes'].includes(raw)) return true;
    if (['false', '0', 'no'].includes(raw)) return false;
    ctx.addIssue({ code: 'custom', message: 'must be true or false' });
    return z.NEVER;
  });
export const adminToken = z
  .string()
  .min(16, 'must be at least 16 characters (use e.g. `openssl rand -hex 32`)')
  .max(512, 'must be at most 512 printable characters without spaces')
  .regex(/^[\x21-\x7e]+$/, 'must be at most 512 printable characters without spaces');

export const logLevel = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }));
