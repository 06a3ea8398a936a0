import fs from 'node:fs';
import { z } from 'zod';
import { processRuns } from '../db/embedded/file-lock';

const hostStateSchema = z.object({ pid: z.number().int().positive(), port: z.number().int().min(1).max(65535) });
export type HostState = z.infer<typeof hostStateSchema>;

/** The running host named by DATA_DIR/sandbox-host.json, if its process still runs. */
export function readHostState(file: string): HostState | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const parsed = hostStateSchema.safeParse(safeJson(text));
  if (!parsed.success || !processRuns(parsed.data.pid)) return undefined;
  return parsed.data;
}

/** Written whole or not at all: a reader never sees half a file. */
export function writeHostState(file: string, state: HostState): void {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(state), { mode: 0o600 });
  fs.renameSync(temporary, file);
}

/** Removes the file if it still names this process (a newer host may have replaced it). */
export function removeHostState(file: string, pid: number): void {
  const current = readHostStateRaw(file);
  if (current?.pid === pid) fs.rmSync(file, { force: true });
}

function readHostStateRaw(file: string): HostState | undefined {
  try {
    const parsed = hostStateSchema.safeParse(safeJson(fs.readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
