import { cpuPerRequest, withMachineCpu } from '../../bench/machine-cpu';

describe('the machine CPU a bench phase spent', () => {
  it('counts a phase that keeps a core busy, and divides it per request', async () => {
    const burnedMs = 300;
    const { result, cpu } = await withMachineCpu(async () => {
      const until = process.cpuUsage().user + burnedMs * 1000;
      let spins = 0;
      while (process.cpuUsage().user < until) spins++;
      return spins;
    });
    expect(result).toBeGreaterThan(0);
    // /proc/stat counts in 10 ms ticks, and every process of the machine is in it: at least this one's burn, less a tick.
    expect(cpu!.busyMs).toBeGreaterThanOrEqual(burnedMs - 10);
    expect(cpu!.stealMs).toBeGreaterThanOrEqual(0);
    expect(cpuPerRequest({ busyMs: 1234, stealMs: 0 }, 100)).toBe(12.3);
    expect(cpuPerRequest({ busyMs: 1234, stealMs: 0 }, 0)).toBeUndefined();
    expect(cpuPerRequest(undefined, 100)).toBeUndefined();
  });
});
