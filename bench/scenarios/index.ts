import { events } from './events';
import { queueClaims } from './queue-claims';
import { growth } from './growth';
import { ledgerFollow } from './ledger-follow';
import { loginStorm } from './login-storm';
import { minting } from './minting';
import { readPath } from './read-path';
import { readPathCores } from './read-path-cores';
import { soak } from './soak';
import { transfers } from './transfers';
import type { Scenario } from './types';

/** In the order a full run takes them: cheap reads first, the big seeding, then the 5-minute soak, last. */
export const SCENARIOS: Scenario[] = [readPath, readPathCores, loginStorm, transfers, ledgerFollow, events, queueClaims, minting, growth, soak];
