import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { RunAs } from './binaries';

/**
 * Where the embedded server keeps its files: DATA_DIR/pg, unless the server runs as the postgres
 * user (the service runs as root) and that user cannot reach DATA_DIR. A checkout under /root
 * (mode 0700) is the common case: then the files go in a directory of their own under
 * RELOCATED_ROOT, named by a hash of DATA_DIR's absolute path (two checkouts never share one),
 * and DATA_DIR/pg is a symbolic link to it, so a restart finds them again.
 */

/** Where relocated data directories go: the usual home of a service's state, reachable by every user. */
export const RELOCATED_ROOT = '/var/lib/wallet-service';

export interface DataLocation {
  /** The directory the server is given (-D): reachable by the user it runs as. */
  pgDir: string;
  /** Said once at start when the files are not plainly in DATA_DIR/pg. */
  note?: string;
}

export function locateDataDirectory(dataDir: string, runAs: RunAs | undefined): DataLocation {
  const link = path.join(dataDir, 'pg');
  if (!runAs) return { pgDir: link };
  const existing = lstatOrUndefined(link);
  if (existing?.isSymbolicLink()) {
    const target = path.resolve(dataDir, fs.readlinkSync(link));
    refuseUnlessReachable(runAs, target);
    return { pgDir: target, note: `embedded PostgreSQL files in ${target} (linked from ${link})` };
  }
  // Ownership of an existing DATA_DIR/pg is settled later (prepareOwnership): only the way there counts here.
  const blocker = firstBlocker(runAs, dataDir);
  if (!blocker) return { pgDir: link };
  if (blocker === dataDir && openForSearch(blocker)) {
    return { pgDir: link, note: `${dataDir}: search permission added for other users, so the postgres user reaches DATA_DIR/pg` };
  }
  // Files an earlier run made here are never moved behind the operator's back.
  if (existing) throw unreachable(link, blocker);
  return relocate(runAs, dataDir, link, blocker);
}

/** The relocated directory of a DATA_DIR: the same path on every start, another one for another checkout. */
export function relocatedDirectory(dataDir: string): string {
  const digest = crypto.createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16);
  return path.join(RELOCATED_ROOT, `pg-${digest}`);
}

function relocate(runAs: RunAs, dataDir: string, link: string, blocker: string): DataLocation {
  const target = relocatedDirectory(dataDir);
  try {
    fs.mkdirSync(RELOCATED_ROOT, { recursive: true, mode: 0o755 });
    fs.symlinkSync(target, link);
  } catch (err) {
    throw new Error(`${unreachable(link, blocker).message}; its files could not go to ${target} instead either: ${(err as Error).message}`);
  }
  refuseUnlessReachable(runAs, RELOCATED_ROOT);
  return {
    pgDir: target,
    note: `the postgres user cannot reach ${blocker}: embedded PostgreSQL files in ${target} (linked from ${link}; the same place on every start)`,
  };
}

function refuseUnlessReachable(runAs: RunAs, dir: string): void {
  const blocker = firstBlocker(runAs, fs.existsSync(dir) ? dir : path.dirname(dir));
  if (blocker) throw unreachable(dir, blocker);
}

function unreachable(dir: string, blocker: string): Error {
  return new Error(
    `as root the embedded PostgreSQL server runs as the postgres user, who cannot reach ${dir}: ${blocker} lets only its owner through. ` +
      `Open it with \`chmod o+x ${blocker}\` (search only, not listing), choose another DATA_DIR, or set DATABASE_URL`,
  );
}

/** The first directory on the way to `dir` (from /) that the user cannot pass, if any. */
function firstBlocker(runAs: RunAs, dir: string): string | undefined {
  if (canEnter(runAs, dir)) return undefined;
  const chain: string[] = [];
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    chain.unshift(at);
    if (path.dirname(at) === at) break;
  }
  return chain.find((at) => !canEnter(runAs, at)) ?? dir;
}

/** Whether the user can pass into `dir` (search permission on it and on every directory above). */
export function canEnter(runAs: RunAs, dir: string): boolean {
  return spawnSync('/bin/sh', ['-c', 'cd "$1"', 'sh', dir], { uid: runAs.uid, gid: runAs.gid, stdio: 'ignore' }).status === 0;
}

/** A root-owned DATA_DIR without search permission for others (mkdtemp makes them 0700) is opened for search only. */
function openForSearch(dir: string): boolean {
  const { mode, uid } = fs.statSync(dir);
  if (uid !== 0 || (mode & 0o001) !== 0) return false;
  fs.chmodSync(dir, (mode & 0o7777) | 0o001);
  return true;
}

function lstatOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch {
    return undefined;
  }
}
