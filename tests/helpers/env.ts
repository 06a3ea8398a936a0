// Every test process runs quietly and with cheap password hashing unless a test says otherwise.
process.env.LOG_LEVEL ??= 'silent';
process.env.BCRYPT_COST ??= '4';
