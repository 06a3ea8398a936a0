import express from 'express';
import request from 'supertest';
import { labelMatchedRoutes, routeLabel, UNMATCHED_ROUTE } from '../../src/metrics/route-label';

/**
 * The route label is remembered per route object (src/metrics/route-label.ts): a router mounted
 * at two paths shares its route objects, so the remembered label must follow the mount path.
 */
describe('route labels', () => {
  const app = express();
  labelMatchedRoutes(app);
  const router = express.Router();
  router.get('/items/:id', (req, res) => {
    res.json({ label: routeLabel(req), route: (req.route as { path: string }).path });
  });
  app.use('/a', router);
  app.use('/b/c', router);
  app.use((req, res) => {
    res.status(404).json({ label: routeLabel(req) });
  });

  it('follows the mount path of a router mounted twice, in any order of requests', async () => {
    for (const [path, label] of [
      ['/a/items/1', '/a/items/:id'],
      ['/b/c/items/2', '/b/c/items/:id'],
      ['/b/c/items/3', '/b/c/items/:id'],
      ['/a/items/4', '/a/items/:id'],
    ] as const) {
      const res = await request(app).get(path).expect(200);
      expect(res.body).toEqual({ label, route: '/items/:id' });
    }
  });

  it('labels a request no route matched as unmatched', async () => {
    const res = await request(app).get('/a/nothing/here').expect(404);
    expect(res.body).toEqual({ label: UNMATCHED_ROUTE });
  });
});
