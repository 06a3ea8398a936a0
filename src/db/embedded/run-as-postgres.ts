import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { RunAs } from './binaries';

// PostgreSQL refuses to run as root: as root the embedded server runs as the postgres system user,
// and its files must be that user's. Everything about that is here.

const POSTGRES_USER = 'postgres';

/**
 * PostgreSQL refuses to run as root. As root the server runs as the `postgres` system user
 * (Debian's postgresql packages and many images have one). A fresh image often has none: it is
 * added then, as a system user with no home and no login shell, the way those packages add it.
 */
export function postgresUserIfRoot(say: (message: string) => void, user = POSTGRES_USER): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const existing = systemUser(user);
  if (existing) return existing;
  const added = [
    ['useradd', '--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', user],
    ['adduser', '-S', '-D', '-H', '-s', '/sbin/nologin', user], // BusyBox (Alpine)
  ].some(([command, ...args]) => {
    try {
      execFileSync(command!, args, { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  });
  const created = added ? systemUser(user) : undefined;
  if (!created) {
    throw new Error(
      `the embedded PostgreSQL server cannot run as root, and there is no "${user}" system user to run it as, nor could one be added: ` +
        `add one (useradd --system --user-group --no-create-home ${user}), run the service as another user, or set DATABASE_URL`,
    );
  }
  say(`system user "${user}" added (uid ${created.uid}): the embedded PostgreSQL server runs as it, since PostgreSQL refuses to run as root`);
  return created;
}

function systemUser(user: string): RunAs | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

/**
 * PostgreSQL wants its data directory owned by the user it runs as, mode 0700. As root, a
 * directory made by an earlier non-root run is handed to the postgres user; as another user,
 * a directory made by a root run cannot be taken back without root, so say how.
 */
export function prepareOwnership(runAs: RunAs | undefined, pgDir: string, say: (message: string) => void): void {
  const owner = fs.statSync(pgDir).uid;
  if (runAs) {
    if (owner !== runAs.uid) {
      execFileSync('chown', ['-R', `${runAs.uid}:${runAs.gid}`, pgDir]);
      say(`${pgDir} handed to the postgres user (uid ${runAs.uid}): PostgreSQL does not run as root`);
    }
  } else if (process.getuid && owner !== process.getuid()) {
    throw new Error(`${pgDir} belongs to uid ${owner} (made by a run as root?), and the embedded server must run as you: sudo chown -R $(id -u):$(id -g) ${pgDir}`);
  }
  fs.chmodSync(pgDir, 0o700);
}

export function reachHint(runAs: RunAs | undefined, pgDir: string): string {
  return runAs ? ` (as root the server runs as the postgres user, who must be able to reach ${path.dirname(pgDir)})` : '';
}
