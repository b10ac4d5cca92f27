import { expect } from 'chai';
import { type Api } from '../../../support/http-harness.js';

export function describeOpenEndpoints(api: () => Api): void {
  describe('open endpoints', () => {
    it('when /openapi.json is fetched without a token, then it is the OpenAPI 3.1 contract', async () => {
      const response = await api().request('GET', '/openapi.json', { as: null });

      expect(response.status).to.equal(200);
      expect(response.headers['content-type']).to.equal('application/json; charset=utf-8');
      const document = JSON.parse(response.text);
      expect(document.openapi).to.equal('3.1.0');
      expect(document.components.schemas).to.include.all.keys('Plant', 'NewPlant', 'Error');
      const created = document.webhooks['plant.created'].post;
      expect(created.requestBody.content['application/json'].schema.$ref).to.equal(
        '#/components/schemas/NewPlant',
      );
      expect(created.parameters.map((p: { name: string }) => p.name)).to.deep.equal([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]);
      expect(document.components.securitySchemes.bearerAuth).to.deep.include({
        type: 'http',
        scheme: 'bearer',
      });
      const limit = document.paths['/plants'].get.parameters.find(
        (p: { name: string }) => p.name === 'limit',
      );
      expect(limit.schema).to.deep.include({ minimum: 0, maximum: 2147483647 });
      // The int64 bounds are served digit for digit, not rounded through a double.
      expect(response.text).to.include(
        '"minimum":-9223372036854775808,"maximum":9223372036854775807',
      );
    });

    it('when every status of the error table is looked up, then the document lists it where it can occur', async () => {
      const document = JSON.parse((await api().request('GET', '/openapi.json', { as: null })).text);
      const statuses = (path: string, method: string) =>
        Object.keys(document.paths[path][method].responses);

      expect(statuses('/plants', 'post')).to.include.members([
        '200',
        '400',
        '401',
        '403',
        '409',
        '413',
        '415',
        '429',
        '500',
        '503',
      ]);
      expect(statuses('/plants', 'get')).to.include.members([
        '200',
        '400',
        '401',
        '403',
        '429',
        '500',
        '503',
      ]);
      expect(statuses('/plants/{id}', 'delete')).to.include.members([
        '204',
        '400',
        '401',
        '403',
        '404',
        '429',
        '500',
        '503',
      ]);
    });

    it('when /docs is fetched, then an HTML page describes the operations', async () => {
      const response = await api().request('GET', '/docs', { as: null });

      expect(response.status).to.equal(200);
      expect(response.headers['content-type']).to.equal('text/html; charset=utf-8');
      expect(response.text).to.include('POST /plants').and.include('DELETE /plants/{id}');
    });

    it('when health and readiness are asked, then both answer 200 without a token', async () => {
      const live = await api().request('GET', '/healthz', { as: null });
      const ready = await api().request('GET', '/readyz', { as: null });

      expect([live.status, JSON.parse(live.text)]).to.deep.equal([200, { status: 'ok' }]);
      expect([ready.status, JSON.parse(ready.text)]).to.deep.equal([200, { status: 'ready' }]);
    });
  });
}
