import { describeClient } from './support/client-suite.js';

describeClient('memory', async () => ({ kind: 'memory' }));
