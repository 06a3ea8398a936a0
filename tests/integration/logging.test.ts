import { adminToken, bearer, createUser } from '../helpers/factories';
import { startTestSmtp } from '../helpers/smtp';
import { startTestApp } from '../helpers/test-app';

describe('logs of a full run', () => {
  it('never contain a password, a JWT, a reset token or a wallet secret key, even at trace level', async () => {
    const smtp = await startTestSmtp();
    const app = await startTestApp({ SMTP_URL: smtp.url }, 'trace');
    try {
      const secrets: string[] = [];
      const user = await createUser(app, { password: 'very-secret-password-1' });
      secrets.push(user.password, user.token);
      await app.http.post('/api/users/login').send({ identifier: user.email, password: 'wrong-password-xyz' }).expect(401);
      secrets.push('wrong-password-xyz');
      const profile = await app.http.get('/api/users/profile').set(bearer(user.token)).expect(200);
      secrets.push(profile.body.ledgerSecretKey);

      await app.http.post('/api/users/send-reset-password-email').send({ email: user.email }).expect(200);
      const mail = await smtp.nextMessage();
      const resetToken = decodeURIComponent(/token=([^\s]+)/.exec(mail.text ?? '')![1]!);
      secrets.push(resetToken);
      await app.http.get(`/reset-password?token=${encodeURIComponent(resetToken)}`).expect(200);
      await app.http.post('/api/users/reset-password').send({ token: resetToken, newPassword: 'another-secret-pw-2' }).expect(200);
      secrets.push('another-secret-pw-2');

      const admin = await adminToken(app);
      secrets.push(admin);
      const wallet = await app.http.get(`/api/admin/users/${user.userId}/wallet`).set(bearer(admin)).expect(200);
      secrets.push(wallet.body.ledgerSecretKey);
      await app.http.post('/api/admin/provision').set(bearer(admin)).send({ email: 'two@example.com', password: 'provisioned-pw-3' }).expect(201);
      secrets.push('provisioned-pw-3');
      // An unhandled-error path logs the error object: make sure that is covered too.
      await app.http.post('/api/users/login').set('Content-Type', 'application/json').send('{"password":"leaky-password-4"').expect(400);
      secrets.push('leaky-password-4');

      const logs = app.logs.join('');
      expect(app.logs.length).toBeGreaterThan(10);
      for (const secret of secrets) expect(logs).not.toContain(secret);
      expect(logs).toContain('"path":"/reset-password"');
    } finally {
      await app.close();
      await smtp.close();
    }
  });
});
