import type { StorageOptions } from '../../../src/config/index.js';
import { Api } from '../../support/http-harness.js';
import { describeAccess } from './suite/access.js';
import { describeCreate } from './suite/create.js';
import { describeDelete } from './suite/delete.js';
import { describeGet } from './suite/get.js';
import { describeList } from './suite/list.js';
import { describeOpenEndpoints } from './suite/open-endpoints.js';

/**
 * The HTTP contract of docs/http-contract.md, black-box through the real container and a real
 * server; every response is also checked against the served OpenAPI document. Each storage
 * adapter runs it with its own StorageOptions (the function may skip via serverMissing).
 */
export function describeHttpContract(
  name: string,
  storage: (context: Mocha.Context) => Promise<StorageOptions>,
): void {
  describe(`HTTP contract: ${name}`, function () {
    const api = {} as { current: Api };

    before(async function () {
      api.current = await Api.start(await storage(this));
    });
    after(async () => {
      await api.current?.close();
    });
    beforeEach(() => api.current.newTenants());

    const get = () => api.current;
    describeCreate(get);
    describeList(get);
    describeGet(get);
    describeDelete(get);
    describeAccess(get);
    describeOpenEndpoints(get);
  });
}
