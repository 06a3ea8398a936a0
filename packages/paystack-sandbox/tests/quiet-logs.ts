// The sandbox logs through pino at LOG_LEVEL (default info): tests run quietly unless told otherwise.
process.env.LOG_LEVEL ??= 'silent';
