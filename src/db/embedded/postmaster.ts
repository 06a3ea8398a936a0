import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { processRuns } from './file-lock';
import type { PostgresBinaries, RunAs } from './binaries';

/**
 * The PostgreSQL server process of one data directory, driven through pg_ctl: it starts the
 * server in its own session (a Ctrl-C meant for the service never reaches it, so the service
 * finishes its requests before it stops the database) and waits for it to be ready.
 */

/** What postmaster.pid says: the server's process id, port, Unix socket directory and state. */
export interface PostmasterInfo {
  pid: number;
  port: number;
  /** Where its Unix socket is; undefined when it listens on TCP only (or was started by a version that did). */
  socketDirectory: string | undefined;
  /** `ready`, `starting`, `stopping` or `standby` (PostgreSQL 10+), empty while it starts. */
  status: string;
}

export function readPostmasterPid(pgDir: string): PostmasterInfo | undefined {
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  const socketDirectory = (lines[4] ?? '').trim() || undefined;
  return { pid, port, socketDirectory, status: (lines[7] ?? '').trim() };
}

/**
 * Whether the process named in postmaster.pid is a running PostgreSQL server. After a crash
 * the file stays behind, and its process id may since belong to another program (on Linux the
 * command line tells), or to a process of another user (so PostgreSQL's own check, a signal,
 * would call the file live and refuse to start).
 */
export function postmasterRuns(info: PostmasterInfo): boolean {
  if (!processRuns(info.pid)) return false;
  try {
    const argv0 = fs.readFileSync(`/proc/${info.pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
    return /postgres(\.exe)?$/.test(path.basename(argv0));
  } catch {
    return true; // no /proc (macOS): the signal check is all there is
  }
}

export function removeStalePid(pgDir: string): void {
  fs.rmSync(path.join(pgDir, 'postmaster.pid'), { force: true });
}

/** A port nobody listens on now, on the loopback address the server will use. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export interface Runner {
  binaries: PostgresBinaries;
  runAs: RunAs | undefined;
}

/** Runs one of the PostgreSQL programs, as the postgres user when this process is root. */
export function run(runner: Runner, program: string, args: string[], timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      program,
      args,
      {
        timeout: timeoutMs,
        ...(runner.runAs ?? {}),
        // English messages: the log is read for "incompatible with server".
        env: { ...process.env, LC_ALL: 'C', LANG: 'C' },
      },
      (err, stdout, stderr) => (err ? reject(new Error(`${path.basename(program)} failed: ${(stderr || stdout || err.message).trim()}`)) : resolve(stdout)),
    );
  });
}

export const serverLog = (pgDir: string) => path.join(pgDir, 'postgresql.log');

/** The last lines of the server's log, for error messages. */
export function logTail(pgDir: string, lines = 15): string {
  try {
    return fs.readFileSync(serverLog(pgDir), 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/**
 * Starts the server on `port` and waits until it accepts connections. It listens on loopback TCP
 * and, given `socketDirectory`, on a Unix-domain socket there too: the service connects through the
 * socket (a round trip costs less than over TCP), while TCP stays for everything else (psql or a
 * GUI run by another user, who cannot enter the socket's private directory; tools that only speak
 * host:port). Never the default socket directory: the temp directory is shared with whatever else
 * runs here. `settings` are extra `-c name=value` options for this run (tests turn durability off).
 */
export async function startServer(
  runner: Runner,
  pgDir: string,
  port: number,
  socketDirectory: string | undefined,
  settings: Record<string, string>,
): Promise<void> {
  if (socketDirectory !== undefined && !isShellSafePath(socketDirectory)) throw new Error(`embedded PostgreSQL socket directory ${socketDirectory} is not a plain path`);
  const options = [`-p ${port}`, '-c listen_addresses=127.0.0.1', `-c unix_socket_directories=${socketDirectory ?? ''}`];
  for (const [name, value] of Object.entries(settings)) {
    // pg_ctl hands -o to a shell: only plain words get through.
    if (!/^[a-z_]+$/.test(name) || !/^[A-Za-z0-9_.]+$/.test(value)) throw new Error(`embedded PostgreSQL setting ${name}=${value} is not a plain word`);
    options.push(`-c ${name}=${value}`);
  }
  await run(runner, runner.binaries.pgCtl, ['start', '-D', pgDir, '-w', '-t', '60', '-s', '-l', serverLog(pgDir), '-o', options.join(' ')]);
}

/**
 * An absolute path that passes pg_ctl's shell and PostgreSQL's comma-separated
 * unix_socket_directories unquoted (no spaces, commas, quotes or other shell characters).
 */
export function isShellSafePath(dir: string): boolean {
  return /^\/[A-Za-z0-9_./-]*$/.test(dir);
}

/** Fast shutdown: open sessions are ended, the data is checkpointed. */
export async function stopServer(runner: Runner, pgDir: string): Promise<void> {
  await run(runner, runner.binaries.pgCtl, ['stop', '-D', pgDir, '-m', 'fast', '-w', '-t', '60', '-s']);
}
