import { closeTestDatabase } from './test-app';

// Each test file opens its database lazily; this closes it when the file is done.
afterAll(async () => {
  await closeTestDatabase();
});
