import fs from 'node:fs';

/** Whether a process with this id runs (on this machine). EPERM: it runs, as another user. */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs fn while holding a lock file (created exclusively, holding this process's id), so that
 * processes sharing DATA_DIR start, adopt and stop the embedded server one at a time. A lock
 * left by a process that no longer runs (killed mid-start) is taken over.
 */
export async function withFileLock<T>(file: string, timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o644 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = lockHolder(file);
    if (holder === 'gone') continue;
    if (holder === undefined || !processRuns(holder)) {
      // No id yet: a holder between creating and writing the file, or killed right there.
      if (holder !== undefined || ageMs(file) > 5_000) fs.rmSync(file, { force: true });
      else await sleep(50);
      continue;
    }
    if (Date.now() > deadline) throw new Error(`${file} is still held by process ${holder} after ${timeoutMs / 1000} s`);
    await sleep(100);
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(file, { force: true });
  }
}

function lockHolder(file: string): number | undefined | 'gone' {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw err;
  }
}

function ageMs(file: string): number {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
