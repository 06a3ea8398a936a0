import fs from 'node:fs';

/**
 * The CPU the whole machine spent over one phase, from /proc/stat: user, nice, system, irq and
 * softirq time of every core, not idle, iowait or steal. Divided by the phase's requests it is what
 * one request costs across every process that serves it (the service, the sandbox host, PostgreSQL,
 * the load generator), and unlike a rate it does not move when another guest on the host takes
 * the cores for a while (that time is steal). Linux only: elsewhere undefined.
 */
export interface MachineCpu {
  /** CPU milliseconds spent by the machine during the phase. */
  busyMs: number;
  /** CPU milliseconds the hypervisor gave to others while this machine wanted to run (steal). */
  stealMs: number;
  /**
   * The busy time by the part of the system that spent it (processes alive at both ends of the
   * phase, from /proc/[pid]/stat): where a request's cost goes, so the next change aims at it.
   */
  byPart: Record<SystemPart, number>;
}

/** The parts of the system a bench run starts, told apart by their command lines. */
export type SystemPart = 'service' | 'sandbox host' | 'ledger sandbox' | 'Paystack sandbox' | 'PostgreSQL' | 'bench (load)' | 'other';

interface Reading {
  busy: number;
  steal: number;
  /** Ticks (user + system, every thread) of each process by pid, with its part. */
  processes: Map<number, { part: SystemPart; ticks: number }>;
}

/** Which part a process is, from its command name and line (pid: the bench's own process). */
export function partOf(pid: number, comm: string, cmdline: string): SystemPart {
  if (pid === process.pid) return 'bench (load)';
  if (comm === 'postgres' || /(^|\/)postgres( |$)/.test(cmdline)) return 'PostgreSQL';
  if (cmdline.includes('sandbox-host/host-main')) return 'sandbox host';
  // The standalone sandboxes a scenario starts on their own (npm run sandbox:ledger, sandbox:paystack).
  if (/horizon-sandbox\/src\/cli|sandbox\/horizon\/cli/.test(cmdline)) return 'ledger sandbox';
  if (/paystack-sandbox\/src\/cli|sandbox\/paystack\/cli/.test(cmdline)) return 'Paystack sandbox';
  if (/src\/server\.ts|dist\/server\.js/.test(cmdline)) return 'service';
  return 'other';
}

function readProcesses(): Map<number, { part: SystemPart; ticks: number }> {
  const processes = new Map<number, { part: SystemPart; ticks: number }>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last ')'.
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      // utime and stime are fields 14 and 15 of the line, 12 and 13 after "pid (comm) "
      const ticks = Number(fields[11]) + Number(fields[12]);
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      processes.set(pid, { part: partOf(pid, comm, cmdline), ticks });
    } catch {
      // gone between the listing and the read
    }
  }
  return processes;
}

/** USER_HZ: /proc/stat counts in hundredths of a second on every Linux platform Node runs on. */
const TICKS_PER_SECOND = 100;

function read(): Reading | undefined {
  let text: string;
  try {
    text = fs.readFileSync('/proc/stat', 'utf8');
  } catch {
    return undefined;
  }
  const line = text.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return undefined;
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice (guest time is inside user)
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).slice(1).map(Number);
  return { busy: user + nice + system + irq + softirq, steal, processes: readProcesses() };
}

const PARTS: SystemPart[] = ['service', 'sandbox host', 'ledger sandbox', 'Paystack sandbox', 'PostgreSQL', 'bench (load)', 'other'];

/** Each part's ticks over the phase; a process that started or ended within it counts what it did while seen. */
function byPart(before: Reading, after: Reading): Record<SystemPart, number> {
  const parts = Object.fromEntries(PARTS.map((p) => [p, 0])) as Record<SystemPart, number>;
  for (const [pid, now] of after.processes) parts[now.part] += now.ticks - (before.processes.get(pid)?.ticks ?? now.ticks);
  return parts;
}

/** Runs `phase` and says what the machine's cores spent meanwhile (undefined off Linux). */
export async function withMachineCpu<T>(phase: () => Promise<T>): Promise<{ result: T; cpu: MachineCpu | undefined }> {
  const before = read();
  const result = await phase();
  const after = read();
  const toMs = (ticks: number) => Math.round((ticks * 1000) / TICKS_PER_SECOND);
  const cpu =
    before && after
      ? {
          busyMs: toMs(after.busy - before.busy),
          stealMs: toMs(after.steal - before.steal),
          byPart: Object.fromEntries(Object.entries(byPart(before, after)).map(([part, ticks]) => [part, toMs(ticks)])) as Record<SystemPart, number>,
        }
      : undefined;
  return { result, cpu };
}

/** Milliseconds of machine CPU per request, to one decimal; undefined without a reading or a request. */
export function cpuPerRequest(cpu: Pick<MachineCpu, 'busyMs'> | undefined, requests: number): number | undefined {
  return cpu && requests > 0 ? Math.round((cpu.busyMs / requests) * 10) / 10 : undefined;
}

/**
 * One phase's CPU per request by part of the system, as a table row (none off Linux). Parts that
 * spent nothing are left out: a scenario without a standalone sandbox has no column for one.
 */
export function cpuByPartRow(what: string, cpu: MachineCpu | undefined, requests: number): Record<string, string | number> {
  const row: Record<string, string | number> = { what };
  for (const [part, ms] of Object.entries(cpu?.byPart ?? {})) if (ms > 0) row[part] = cpuPerRequest({ busyMs: ms }, requests) ?? '-';
  return row;
}
