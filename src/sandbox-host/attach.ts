import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { processRuns, withFileLock } from '../db/embedded/file-lock';
import type { Logger } from '../logger';
import { HOST_CONTROL_PATH, HOST_OPTIONS_VARIABLE, hostFiles, type HostOptions } from './host-options';
import { isHostOf, recordedHost, type HostState } from './host-state';

const REPO_ROOT = path.resolve(__dirname, '../..');
const HOST_MAIN = path.join(__dirname, `host-main${path.extname(__filename)}`);
const START_TIMEOUT_MS = 60_000;
const LOCK_TIMEOUT_MS = 120_000;
/** A host silent this long is taken for hung (a busy one answers its health check well within it). */
const HEALTH_TIMEOUT_MS = 10_000;
const REATTACH_DELAYS_MS = [100, 500, 1_000, 2_000, 5_000];

export interface SandboxHostAttachment {
  /** The host's address on loopback, e.g. http://127.0.0.1:40123: the sandboxes are under /sandbox/. */
  url(): string;
  /** The host's process id (tests hold it on a latch with SIGSTOP). */
  pid(): number;
  /** Lets go: the host leaves once no process of its DATA_DIR is attached (after its idle time). */
  detach(): void;
}

/**
 * Attaches this process to the sandbox host of its DATA_DIR, starting the host when none runs.
 * Under the host's start lock, so that however many service processes start at once (a cluster, a
 * second `npm start`, a restart after a kill), exactly one host owns the DATA_DIR. The attachment is
 * an open request: when this process ends, however it ends, the host sees it go.
 */
export async function attachSandboxHost(options: HostOptions, logger: Logger): Promise<SandboxHostAttachment> {
  const files = hostFiles(options.dataDir);
  let state = await attachOnce(options, logger);
  let detached = false;
  let attempt = 0;

  const watch = (attachment: Attachment) => {
    attachment.lost.then(async () => {
      while (!detached) {
        const delay = REATTACH_DELAYS_MS[Math.min(attempt++, REATTACH_DELAYS_MS.length - 1)]!;
        logger.warn({ pid: state.host.pid }, `the sandbox host went away: attaching to a new one in ${delay} ms`);
        await sleep(delay);
        if (detached) return;
        try {
          const previousPort = state.host.port;
          state = await attachOnce({ ...options, preferredPort: previousPort }, logger);
          attempt = 0;
          if (state.host.port !== previousPort) {
            logger.error({ previousPort, port: state.host.port }, 'the new sandbox host could not take the old port: restart the service so its clients reach it');
          }
          watch(state.attachment);
          return;
        } catch (err) {
          logger.warn({ err }, 'could not attach to a sandbox host');
        }
      }
    }, () => undefined);
  };
  watch(state.attachment);

  return {
    url: () => `http://127.0.0.1:${state.host.port}`,
    pid: () => state.host.pid,
    detach: () => {
      detached = true;
      state.attachment.close();
    },
  };

  async function attachOnce(hostOptions: HostOptions, log: Logger): Promise<{ host: HostState; attachment: Attachment }> {
    return withFileLock(files.lock, LOCK_TIMEOUT_MS, async () => {
      const recorded = recordedHost(files.state);
      let host = recorded && processRuns(recorded.pid) && (await answers(recorded)) ? recorded : undefined;
      if (!host) {
        // A host that runs but does not answer (hung, or frozen) still owns the DATA_DIR: it goes
        // before another starts, which takes its port when free, so attached clients keep their URL.
        if (recorded) await stopHost(recorded.pid, hostOptions.dataDir, log);
        host = await startHost({ ...hostOptions, preferredPort: hostOptions.preferredPort ?? recorded?.port }, files, log);
      }
      return { host, attachment: await openAttachment(host) };
    });
  }
}

interface Attachment {
  /** Settles when the host ends the attachment (it went away), not when this process closes it. */
  lost: Promise<void>;
  close(): void;
}

async function startHost(options: HostOptions, files: ReturnType<typeof hostFiles>, logger: Logger): Promise<HostState> {
  const log = fs.openSync(files.log, 'a', 0o600);
  // --data-dir only names the host in `ps`: its options come in the environment.
  // Only what the host needs: none of the service's own secrets (JWT, database, wallet key) go to it.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, TZ: process.env.TZ, [HOST_OPTIONS_VARIABLE]: JSON.stringify(options) };
  const child = spawn(process.execPath, ['--import', 'tsx', HOST_MAIN, '--data-dir', options.dataDir], { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  child.unref();
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = `exited with ${signal ?? code}`));
  child.once('error', (err) => (exited = err.message));

  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const state = recordedHost(files.state);
    if (state && state.pid === child.pid && (await answers(state))) {
      logger.info({ pid: state.pid, port: state.port, log: files.log }, 'embedded sandboxes started in their own process');
      return state;
    }
    if (exited || Date.now() > deadline) {
      if (!exited) child.kill('SIGKILL');
      throw new Error(`the sandbox host ${exited ?? `did not start within ${START_TIMEOUT_MS / 1000} s`}: see ${files.log}\n${logTail(files.log)}`);
    }
    await sleep(50);
  }
}

/** Kills a host of this DATA_DIR that no longer answers, and waits until it is gone. */
async function stopHost(pid: number, dataDir: string, logger: Logger): Promise<void> {
  if (!processRuns(pid) || !isHostOf(pid, dataDir)) return;
  logger.warn({ pid }, 'the sandbox host does not answer: stopping it before starting another');
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return; // gone meanwhile
  }
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (processRuns(pid) && isHostOf(pid, dataDir)) {
    if (Date.now() > deadline) throw new Error(`the sandbox host ${pid} does not answer and could not be stopped`);
    await sleep(20);
  }
}

/** Whether the host named in the state file is the one answering on its port (not a stranger). */
function answers(host: HostState): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port: host.port, path: `${HOST_CONTROL_PATH}/health`, timeout: HEALTH_TIMEOUT_MS, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        try {
          resolve(res.statusCode === 200 && (JSON.parse(body) as { pid?: number }).pid === host.pid);
        } catch {
          resolve(false);
        }
      });
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

function openAttachment(host: HostState): Promise<Attachment> {
  return new Promise((resolve, reject) => {
    let closing = false;
    const req = http.get({ host: '127.0.0.1', port: host.port, path: `${HOST_CONTROL_PATH}/attach`, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`the sandbox host refused the attachment: ${res.statusCode}`));
        return;
      }
      res.on('data', () => undefined);
      // Once attached, the attachment never keeps this process alive: a command that is done
      // exits, and the host sees it go. (Not before: the answer is awaited.)
      res.socket.unref();
      const lost = new Promise<void>((settle, fail) => {
        res.once('close', () => (closing ? fail(new Error('detached')) : settle()));
      });
      lost.catch(() => undefined);
      resolve({
        lost,
        close: () => {
          closing = true;
          req.destroy();
        },
      });
    });
    req.on('error', (err) => {
      if (!closing) reject(err);
    });
  });
}

function logTail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '';
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
