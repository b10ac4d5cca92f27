import { describeHttpContract } from './http-contract.js';

describeHttpContract('memory', async () => ({ kind: 'memory' }));
