import {
  BadRequestException,
  Body,
  ConflictException,
  Controller,
  Delete,
  Get,
  HttpCode,
  Injectable,
  NotFoundException,
  Param,
  Post,
  Query,
  Req,
  UseGuards,
  type PipeTransform,
} from '@nestjs/common';
import { parseLimit, validPlant, type RefPlant } from '../reference-store.js';
import { pathId, REFUSALS } from '../token-digests.js';
import { BearerAuthGuard, RequiredScope, type AuthenticatedRequest } from './bearer-auth.guard.js';
import { PlantsService } from './plants.service.js';

/** A `NewPlant` body: the field checks of the other bench servers, 400 40002 when one fails. */
@Injectable()
export class NewPlantPipe implements PipeTransform<unknown, { id: number; plant: RefPlant }> {
  transform(body: unknown): { id: number; plant: RefPlant } {
    const input = validPlant(body);
    if (input === undefined) throw new BadRequestException(REFUSALS.badPlant);
    return input;
  }
}

@Controller('plants')
@UseGuards(BearerAuthGuard)
export class PlantsController {
  constructor(private readonly plants: PlantsService) {}

  @Get()
  @RequiredScope('plants:read')
  list(@Req() request: AuthenticatedRequest, @Query('limit') limitText?: string): RefPlant[] {
    const limit = parseLimit(limitText);
    if (limit === undefined) throw new BadRequestException(REFUSALS.badLimit);
    return this.plants.list(request.caller.tenant, limit);
  }

  @Post()
  @HttpCode(200)
  @RequiredScope('plants:write')
  create(
    @Req() request: AuthenticatedRequest,
    @Body(NewPlantPipe) { id, plant }: { id: number; plant: RefPlant },
  ): RefPlant {
    if (!this.plants.create(request.caller.tenant, id, plant)) {
      throw new ConflictException(REFUSALS.duplicate(id));
    }
    return plant;
  }

  @Delete(':id')
  @HttpCode(204)
  @RequiredScope('plants:write')
  remove(@Req() request: AuthenticatedRequest, @Param('id') idText: string): void {
    const id = pathId(idText);
    if (id === undefined) throw new BadRequestException(REFUSALS.badId);
    if (!this.plants.remove(request.caller.tenant, id)) {
      throw new NotFoundException(REFUSALS.notFound(idText));
    }
  }
}
