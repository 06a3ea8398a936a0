import crypto from 'node:crypto';
import type { TestApp } from './test-app';

export interface SignupFields {
  username: string;
  email: string;
  password: string;
  firstName: string;
  lastName: string;
}

export function userFields(overrides: Partial<SignupFields> = {}): SignupFields {
  const tag = crypto.randomBytes(4).toString('hex');
  return {
    username: `user_${tag}`,
    email: `user_${tag}@example.com`,
    password: `pw-${tag}-secret`,
    firstName: 'Ada',
    lastName: 'Lovelace',
    ...overrides,
  };
}

export interface CreatedUser extends SignupFields {
  userId: string;
  token: string;
  ledgerPublicKey: string;
}

/** Signs up and logs in through the API, as a client would. */
export async function createUser(app: TestApp, overrides: Partial<SignupFields> = {}): Promise<CreatedUser> {
  const fields = userFields(overrides);
  const signup = await app.http.post('/api/users/signup').send(fields).expect(201);
  const login = await app.http.post('/api/users/login').send({ identifier: fields.username, password: fields.password }).expect(200);
  return { ...fields, userId: signup.body.userId, token: login.body.token, ledgerPublicKey: login.body.profile.ledgerPublicKey };
}

export const ADMIN = { email: 'root@example.com', password: 'admin-password-1' };

/** Ensures the bootstrap admin exists and returns its bearer token. */
export async function adminToken(app: TestApp): Promise<string> {
  await app.container.admins.ensureAdmin(ADMIN.email, ADMIN.password);
  const res = await app.http.post('/api/admin/login').send(ADMIN).expect(200);
  return res.body.token as string;
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
