import express from 'express';

/** Ceiling: the project's own Express with nothing on it, answering {"status":"ok"} like /healthz. */
const port = Number(process.argv[2]);
const app = express();
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok' });
});
app.listen(port, '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
