import fs from 'node:fs';
import net from 'node:net';

/**
 * A free port the kernel never hands out by itself: below its ephemeral range
 * (ip_local_port_range), from which every `listen(0)` of the suite (the test apps, the sandboxes)
 * and every outgoing connection takes its port. A port taken from that range and let go could be
 * handed to another test's server before the service bound it: the service then failed to bind
 * while that server answered its /healthz, and reset the requests meant for the service when its
 * test closed it (a `connect ECONNRESET` on the first signup, seen once in CI). A port meant to
 * stay closed (nothing listens) is one of these too, for the same reason.
 */
export async function freePort(): Promise<number> {
  const [low, high] = portsOutsideTheEphemeralRange();
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${low}-${high}`);
}

/**
 * Unprivileged ports the kernel does not hand out: below its ephemeral range when there is room
 * there, else above it. Without /proc (not Linux), Linux's default range stands in.
 */
function portsOutsideTheEphemeralRange(): [low: number, high: number] {
  let ephemeral = [32768, 60999];
  try {
    ephemeral = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  } catch {
    // not Linux: keep the default
  }
  const [first = 32768, last = 60999] = ephemeral;
  if (first - 1 - 10000 >= 1000) return [Math.max(10000, Math.min(20000, first - 1000)), first - 1];
  if (65535 - (last + 1) >= 1000) return [last + 1, 65535];
  throw new Error(`the ephemeral port range ${first}-${last} leaves no room for fixed test ports`);
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
