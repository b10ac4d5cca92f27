import { resolve } from 'node:path';
import type { Config } from '../config/index.js';

/** How the listening line names the storage: its kind, and where its data is when on this disk. */
export function storageLabel(storage: Config['storage']): string {
  const dataDir = (storage as { dataDir?: unknown }).dataDir;
  const data = typeof dataDir === 'string' ? `, data: ${resolve(dataDir)}` : '';
  return `storage: ${storage.kind}${data}`;
}
