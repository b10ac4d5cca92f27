import { nextLink } from '../pagination.js';

// Examples of the OpenAPI document. Ids are bigints so that the served JSON (lossless-json) carries
// 9007199254740993 digit for digit: above 2^53, where a double would round it to ...992.

/** 2^53 + 1: the smallest positive integer a double cannot hold. */
export const LARGE_ID = 9007199254740993n;

export const createPlantExamples = {
  'large-id': {
    summary: 'An id above 2^53, kept exact',
    value: { id: LARGE_ID, name: 'Monstera deliciosa', tag: 'aroid' },
  },
  'without-tag': {
    summary: 'No tag: the plant is stored without one',
    value: { id: 42n, name: 'Boston fern' },
  },
};

export const createdPlantExample = {
  'large-id': {
    summary: 'The plant as stored (never the id)',
    value: { name: 'Monstera deliciosa', tag: 'aroid' },
  },
};

export const plantPageExample = {
  'first-page': {
    summary: 'Two plants of `limit=2`; the `Link` header continues the list',
    value: [{ name: 'Boston fern' }, { name: 'Monstera deliciosa', tag: 'aroid' }],
  },
};

export const nextLinkExample = nextLink('/plants', { limit: '2' }, LARGE_ID);
