import { describeClient } from './client/client-suite.js';

describeClient('memory', async () => ({ kind: 'memory' }));
