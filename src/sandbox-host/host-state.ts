import fs from 'node:fs';
import { z } from 'zod';

const hostStateSchema = z.object({ pid: z.number().int().positive(), port: z.number().int().min(1).max(65535) });
export type HostState = z.infer<typeof hostStateSchema>;

/** The host DATA_DIR/sandbox-host.json names (its process may have died since). */
export function recordedHost(file: string): HostState | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const parsed = hostStateSchema.safeParse(safeJson(text));
  return parsed.success ? parsed.data : undefined;
}

/**
 * Whether this process is a sandbox host of this DATA_DIR (Linux: its command line), so that a
 * process id reused by another program is never taken for one.
 */
export function isHostOf(pid: number, dataDir: string): boolean {
  try {
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return argv.some((arg) => /host-main\.[jt]s$/.test(arg)) && argv.includes(dataDir);
  } catch {
    return false;
  }
}

/** Written whole or not at all: a reader never sees half a file. */
export function writeHostState(file: string, state: HostState): void {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(state), { mode: 0o600 });
  fs.renameSync(temporary, file);
}

/** Removes the file if it still names this process (a newer host may have replaced it). */
export function removeHostState(file: string, pid: number): void {
  if (recordedHost(file)?.pid === pid) fs.rmSync(file, { force: true });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
