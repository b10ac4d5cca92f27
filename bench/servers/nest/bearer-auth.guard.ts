import {
  ForbiddenException,
  Injectable,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { RefCaller } from '../reference-store.js';
import { authenticate, loadTokenDigests } from '../token-digests.js';

/** `@RequiredScope('plants:read')` on a handler: the scope its bearer token must carry. */
export const RequiredScope = Reflector.createDecorator<string>();

/** The request as the guard leaves it: the caller its token belongs to. */
export interface AuthenticatedRequest {
  headers: Record<string, string | string[] | undefined>;
  caller: RefCaller;
}

/** Looks the bearer token up by its SHA-256 digest and checks the handler's scope. */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  private readonly tokens = loadTokenDigests();

  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const scope = this.reflector.get(RequiredScope, context.getHandler());
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers.authorization;
    const auth = authenticate(this.tokens, typeof header === 'string' ? header : undefined, scope);
    if ('status' in auth) {
      throw auth.status === 401
        ? new UnauthorizedException(auth.body)
        : new ForbiddenException(auth.body);
    }
    request.caller = auth.caller;
    return true;
  }
}
