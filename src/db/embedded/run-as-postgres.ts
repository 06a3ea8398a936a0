import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { RunAs } from './binaries';

// PostgreSQL refuses to run as root: as root the embedded server runs as the postgres system user,
// and its files must be that user's. Everything about that is here.

const POSTGRES_USER = 'postgres';

/**
 * PostgreSQL refuses to run as root. As root the server runs as the `postgres` system user
 * (Debian's postgresql packages and most images have one); without one, say how to add it.
 */
export function postgresUserIfRoot(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', POSTGRES_USER], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', POSTGRES_USER], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new Error(
      'the embedded PostgreSQL server cannot run as root, and there is no "postgres" system user to run it as: ' +
        'add one (useradd --system --user-group --no-create-home postgres), run the service as another user, or set DATABASE_URL',
    );
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

/**
 * As root, DATA_DIR may be a directory only root can enter (mkdtemp makes them 0700): the
 * postgres user is let through it (search permission only, not listing), or told why not.
 */
export function letPostgresIn(runAs: RunAs, dataDir: string, say: (message: string) => void): void {
  const canEnter = () => spawnSync('/bin/sh', ['-c', 'cd "$1"', 'sh', dataDir], { uid: runAs.uid, gid: runAs.gid, stdio: 'ignore' }).status === 0;
  if (canEnter()) return;
  const { mode, uid } = fs.statSync(dataDir);
  if (uid === 0 && (mode & 0o001) === 0) {
    fs.chmodSync(dataDir, (mode & 0o7777) | 0o001);
    say(`${dataDir}: search permission added for other users, so the postgres user reaches DATA_DIR/pg`);
    if (canEnter()) return;
  }
  throw new Error(`as root the embedded PostgreSQL server runs as the postgres user, who cannot reach ${dataDir}: choose a DATA_DIR outside /root, or set DATABASE_URL`);
}

export function reachHint(runAs: RunAs | undefined, pgDir: string): string {
  return runAs ? ` (as root the server runs as the postgres user, who must be able to reach ${path.dirname(pgDir)}: choose a DATA_DIR outside /root)` : '';
}
