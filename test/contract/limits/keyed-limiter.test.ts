import { describeKeyedLimiter } from './keyed-limiter-contract.js';

describeKeyedLimiter('memory (in process)', async () => undefined);
