import { refusedAddress, refusedUrl, resolveAllowed } from '../../src/security/endpoint-address';

// Where a webhook may be sent (CONTRACT.md section 13): judged on the resolved address, so a name
// that points at the inside of the network is refused like the address itself.

const production = { allowLoopback: false };
const development = { allowLoopback: true };

describe('refusedAddress', () => {
  it('refuses loopback, private, link-local and reserved addresses in production, IPv4 written as IPv6 included', () => {
    const inside = ['127.0.0.1', '127.8.9.10', '::1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.0.10', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::', 'fc00::1', 'fd12:3456::1', 'fe80::1', '::ffff:10.0.0.1', '::ffff:127.0.0.1', '::ffff:169.254.169.254', '224.0.0.1'];
    for (const address of inside) expect([address, refusedAddress(address, production)]).toEqual([address, expect.any(String)]);
  });

  it('allows public addresses, and the edges just outside the private ranges', () => {
    for (const address of ['8.8.8.8', '172.15.255.255', '172.32.0.1', '192.169.0.1', '100.128.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8']) {
      expect([address, refusedAddress(address, production)]).toEqual([address, undefined]);
    }
  });

  it('allows loopback outside production, and still never a private or link-local address', () => {
    expect(refusedAddress('127.0.0.1', development)).toBeUndefined();
    expect(refusedAddress('::1', development)).toBeUndefined();
    for (const address of ['10.0.0.1', '192.168.1.1', '169.254.169.254', 'fe80::1']) expect(refusedAddress(address, development)).toEqual(expect.any(String));
  });
});

describe('refusedUrl', () => {
  it('takes https; plain http only to loopback outside production; never credentials in the URL', () => {
    expect(refusedUrl(new URL('https://hooks.example.com/x'), production)).toBeUndefined();
    expect(refusedUrl(new URL('http://hooks.example.com/x'), production)).toEqual(expect.any(String));
    expect(refusedUrl(new URL('http://127.0.0.1:4000/x'), production)).toEqual(expect.any(String));
    expect(refusedUrl(new URL('http://127.0.0.1:4000/x'), development)).toBeUndefined();
    expect(refusedUrl(new URL('http://localhost:4000/x'), development)).toBeUndefined();
    expect(refusedUrl(new URL('http://hooks.example.com/x'), development)).toEqual(expect.any(String));
    expect(refusedUrl(new URL('https://user:secret@hooks.example.com/x'), production)).toEqual(expect.any(String));
    expect(refusedUrl(new URL('ftp://hooks.example.com/x'), development)).toEqual(expect.any(String));
  });
});

describe('resolveAllowed', () => {
  it('judges the addresses a name resolves to: localhost is loopback, refused in production', async () => {
    expect(await resolveAllowed('localhost', production)).toEqual({ refused: expect.stringMatching(/loopback/) });
    expect(await resolveAllowed('localhost', development)).toEqual({ address: expect.any(String), family: expect.any(Number) });
    expect(await resolveAllowed('[::1]', production)).toEqual({ refused: expect.stringMatching(/loopback/) });
    expect(await resolveAllowed('10.0.0.8', development)).toEqual({ refused: expect.stringMatching(/private/) });
  });

  it('refuses a name that does not resolve', async () => {
    expect(await resolveAllowed('no-such-host.invalid', development)).toEqual({ refused: 'its host name does not resolve' });
  });
});
