import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunAs } from './binaries';
import { canEnter } from './data-location';
import { isShellSafePath } from './postmaster';

/**
 * Where the embedded server's Unix-domain socket goes, and whether this process can connect
 * through it. The service talks to its embedded server over that socket rather than loopback TCP:
 * measured on the build machine, a `SELECT $1` round trip cost the client about a quarter less
 * wall time and some 40% less system CPU, the server saving alike, and under load the service
 * spends much of its time writing to PostgreSQL.
 *
 * The socket is `<dir>/.s.PGSQL.<port>`, and the kernel takes no socket path over 107 bytes
 * (sun_path), so the directory must be short. In order of preference:
 * - the data directory itself: private already (0700, the server's user's), there exactly as long
 *   as the server's files, and named in postmaster.pid for every process of DATA_DIR;
 * - else a directory of its own in the temp directory (`wpg-XXXXXX`, 0700, the server's user's),
 *   made at start and removed when the server stops;
 * - else none: the server listens on loopback TCP in any case, and the URL says TCP.
 */

/** sun_path less its terminating NUL: 108 bytes on Linux, 104 on macOS and the BSDs. */
const SOCKET_PATH_MAX = process.platform === 'linux' ? 107 : 103;
/** The longest name PostgreSQL gives its socket (any port). */
const LONGEST_SOCKET_NAME = '.s.PGSQL.65535';
/** Temp socket directories are recognised by it when their server stops. */
const TEMP_PREFIX = 'wpg-';

/** The directory for the socket of a server about to start in pgDir; undefined means TCP only, and says why. */
export function chooseSocketDirectory(pgDir: string, runAs: RunAs | undefined, say: (message: string) => void): string | undefined {
  // Never tried on Windows (PostgreSQL has AF_UNIX there only since 13): TCP as before.
  if (process.platform === 'win32') return undefined;
  if (holdsSocket(pgDir)) return pgDir;
  const tempRoot = os.tmpdir();
  if (!holdsSocket(path.join(tempRoot, `${TEMP_PREFIX}XXXXXX`))) {
    say(`embedded PostgreSQL on TCP only: neither ${pgDir} nor the temp directory ${tempRoot} is a plain path short enough for a Unix socket (${SOCKET_PATH_MAX} bytes)`);
    return undefined;
  }
  let dir: string;
  try {
    dir = fs.mkdtempSync(path.join(tempRoot, TEMP_PREFIX));
    // As root the server runs as the postgres user: the socket is its to create. Root still connects.
    if (runAs) fs.chownSync(dir, runAs.uid, runAs.gid);
  } catch (err) {
    say(`embedded PostgreSQL on TCP only: no socket directory could be made in ${tempRoot}: ${(err as Error).message}`);
    return undefined;
  }
  if (runAs && !canEnter(runAs, dir)) {
    fs.rmSync(dir, { recursive: true, force: true });
    say(`embedded PostgreSQL on TCP only: the postgres user cannot reach the temp directory ${tempRoot} for its Unix socket`);
    return undefined;
  }
  return dir;
}

/**
 * The socket directory a running server names (postmaster.pid), if this process can connect
 * through it; else undefined, and the connection goes over TCP. A server started by a version of
 * this service without a socket names none; connect() needs search permission on the directory
 * and write permission on the socket, which access() checks (a server started by another user
 * keeps its directory closed).
 */
export function reachableSocketDirectory(dir: string | undefined, port: number): string | undefined {
  if (!dir) return undefined;
  try {
    fs.accessSync(path.join(dir, `.s.PGSQL.${port}`), fs.constants.W_OK);
    return dir;
  } catch {
    return undefined;
  }
}

/** Once its server is gone: a temp socket directory made by chooseSocketDirectory is removed (the data directory never is). */
export function removeSocketDirectory(dir: string | undefined, pgDir: string): void {
  if (!dir || path.resolve(dir) === path.resolve(pgDir) || !path.basename(dir).startsWith(TEMP_PREFIX)) return;
  try {
    // A clean shutdown removed the socket and its lock file already; a killed server left them.
    for (const name of fs.readdirSync(dir)) if (name.startsWith('.s.PGSQL.')) fs.rmSync(path.join(dir, name), { force: true });
    fs.rmdirSync(dir);
  } catch {
    // gone already, or it holds something that is not ours: left alone
  }
}

function holdsSocket(dir: string): boolean {
  return isShellSafePath(dir) && Buffer.byteLength(path.join(dir, LONGEST_SOCKET_NAME)) <= SOCKET_PATH_MAX;
}
