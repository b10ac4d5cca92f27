import { PlantError } from './errors.js';

/** `metrics:read` reaches GET /metrics only; it never reaches plants. */
export const SCOPES = ['plants:read', 'plants:write', 'metrics:read'] as const;
export type Scope = (typeof SCOPES)[number];

export const isScope = (value: unknown): value is Scope => SCOPES.includes(value as Scope);

export interface Caller {
  readonly tenant: string;
  readonly scopes: readonly Scope[];
}

/** The one rule of which scope each operation needs: the use cases and the HTTP door read it. */
export const OPERATION_SCOPES = {
  createPlant: 'plants:write',
  listPlants: 'plants:read',
  getPlant: 'plants:read',
  deletePlant: 'plants:write',
  readMetrics: 'metrics:read',
} as const satisfies Record<string, Scope>;

export function requireScope(caller: Caller, scope: Scope): void {
  if (!caller.scopes.includes(scope)) {
    throw new PlantError('insufficient-scope', `this operation needs the scope ${scope}`, scope);
  }
}
