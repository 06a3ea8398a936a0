import http from 'node:http';

/** Ceiling: node:http alone answering {"status":"ok"} (what the machine allows one Node process). */
const port = Number(process.argv[2]);
const body = JSON.stringify({ status: 'ok' });
http
  .createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  })
  .listen(port, '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
