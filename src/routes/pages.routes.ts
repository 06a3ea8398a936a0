import { Router } from 'express';
import { RESET_PASSWORD_SCRIPT, resetPasswordPage } from '../views/reset-password-page';

/** Browser-facing pages that are not part of the JSON API. */
export function pagesRouter(): Router {
  const router = Router();
  router.get('/reset-password', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.type('html').send(resetPasswordPage());
  });
  router.get('/assets/reset-password.js', (_req, res) => {
    res.type('application/javascript').send(RESET_PASSWORD_SCRIPT);
  });
  return router;
}
