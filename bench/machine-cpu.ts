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
}

interface Reading {
  busy: number;
  steal: number;
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
  return { busy: user + nice + system + irq + softirq, steal };
}

/** Runs `phase` and says what the machine's cores spent meanwhile (undefined off Linux). */
export async function withMachineCpu<T>(phase: () => Promise<T>): Promise<{ result: T; cpu: MachineCpu | undefined }> {
  const before = read();
  const result = await phase();
  const after = read();
  const toMs = (ticks: number) => Math.round((ticks * 1000) / TICKS_PER_SECOND);
  const cpu = before && after ? { busyMs: toMs(after.busy - before.busy), stealMs: toMs(after.steal - before.steal) } : undefined;
  return { result, cpu };
}

/** Milliseconds of machine CPU per request, to one decimal; undefined without a reading or a request. */
export function cpuPerRequest(cpu: MachineCpu | undefined, requests: number): number | undefined {
  return cpu && requests > 0 ? Math.round((cpu.busyMs / requests) * 10) / 10 : undefined;
}
