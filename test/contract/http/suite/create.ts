import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { expectError, type Api } from '../../../support/http-harness.js';

export function describeCreate(api: () => Api): void {
  describe('POST /plants', () => {
    it('when the plant is valid, then 200 answers exactly name and tag', async () => {
      const response = await api().create('1', 'Monstera', 'aroid');

      expect(response.status).to.equal(200);
      expect(response.headers['content-type']).to.equal('application/json; charset=utf-8');
      expect(JSON.parse(response.text)).to.deep.equal({ name: 'Monstera', tag: 'aroid' });
    });

    it('when the tag is absent, then it stays absent; when empty, then it is kept', async () => {
      expect((await api().create('1', 'Fern')).text).to.equal('{"name":"Fern"}');
      expect((await api().create('2', 'Moss', '')).text).to.equal('{"name":"Moss","tag":""}');
      const listed = await api().request('GET', '/plants');
      expect(JSON.parse(listed.text)).to.deep.equal([{ name: 'Fern' }, { name: 'Moss', tag: '' }]);
    });

    it('when ids are 2^53 and 2^53+1, then they are two different plants', async () => {
      expect((await api().create('9007199254740992', 'a')).status).to.equal(200);
      expect((await api().create('9007199254740993', 'b')).status).to.equal(200);

      expectError(await api().create('9007199254740993', 'c'), 409, 40901);
      expect(await api().names()).to.deep.equal(['a', 'b']);
      expect((await api().request('DELETE', '/plants/9007199254740993')).status).to.equal(204);
      expect(await api().names()).to.deep.equal(['a']);
    });

    it('when ids are the int64 extremes, then both are accepted and ordered', async () => {
      expect((await api().create('9223372036854775807', 'max')).status).to.equal(200);
      expect((await api().create('-9223372036854775808', 'min')).status).to.equal(200);
      expect((await api().create('0', 'zero')).status).to.equal(200);

      expect(await api().names()).to.deep.equal(['min', 'zero', 'max']);
    });

    for (const id of ['9223372036854775808', '-9223372036854775809', '1e19', '1e400']) {
      it(`when the id ${id} lies outside int64, then 400 40002 names id`, async () => {
        const body = expectError(await api().create(id, 'x'), 400, 40002);
        expect(body.message).to.match(/\bid\b/);
      });
    }

    it('when the id is written 12.0 or 1.2e1 or 120e-1, then it is the integer 12', async () => {
      expect((await api().create('12.0', 'twelve')).status).to.equal(200);
      expectError(await api().create('1.2e1', 'again'), 409, 40901);
      expectError(await api().create('120e-1', 'again'), 409, 40901);
      expect((await api().request('DELETE', '/plants/12')).status).to.equal(204);
    });

    // A negative zero too: the path refuses `-0` as not canonical, so the body reads it the same.
    for (const id of [
      '1.5',
      '"12"',
      'null',
      'true',
      '1.0000000000000001',
      '[1]',
      '{}',
      '-0',
      '-0.0',
      '-0e3',
    ]) {
      it(`when the id is ${id}, then 400 40002 names id`, async () => {
        const body = expectError(await api().create(id, 'x'), 400, 40002);
        expect(body.message).to.match(/\bid\b/);
        expect(await api().names()).to.deep.equal([]);
      });
    }

    const invalidFields: [string, string][] = [
      ['{"name":"x"}', 'id'],
      ['{"id":1}', 'name'],
      ['{"id":1,"name":""}', 'name'],
      ['{"id":1,"name":5}', 'name'],
      ['{"id":1,"name":null}', 'name'],
      [`{"id":1,"name":"${'x'.repeat(257)}"}`, 'name'],
      ['{"id":1,"name":"tab\\there"}', 'name'],
      ['{"id":1,"name":"del\\u007f"}', 'name'],
      ['{"id":1,"name":"c1\\u0085"}', 'name'],
      ['{"id":1,"name":"lone \\ud800"}', 'name'],
      ['{"id":1,"name":"ok","tag":null}', 'tag'],
      ['{"id":1,"name":"ok","tag":7}', 'tag'],
      [`{"id":1,"name":"ok","tag":"${'t'.repeat(65)}"}`, 'tag'],
      ['{"id":1,"name":"ok","tag":"\\u0000"}', 'tag'],
      // Bidirectional controls, refused as in tenants and labels: they make a text read as another.
      ['{"id":9,"name":"a\\u202eb"}', 'name'],
      ['{"id":9,"name":"\\u2066x\\u2069"}', 'name'],
      ['{"id":9,"name":"x\\u061c"}', 'name'],
      ['{"id":9,"name":"ok","tag":"\\u200f"}', 'tag'],
      ['{"id":9,"name":"ok","tag":"a\u202ab"}', 'tag'],
    ];
    for (const [json, field] of invalidFields) {
      it(`when the body is ${json.slice(0, 40)}, then 400 40002 names ${field}`, async () => {
        const body = expectError(await api().request('POST', '/plants', { json }), 400, 40002);
        expect(body.message).to.match(new RegExp(`\\b${field}\\b`));
        expect(await api().names()).to.deep.equal([]);
      });
    }

    it('when name has 256 code points of astral characters and tag 64, then they are accepted', async () => {
      const name = '🌵'.repeat(256);
      const tag = '🌱'.repeat(64);

      expect(JSON.parse((await api().create('1', name, tag)).text)).to.deep.equal({ name, tag });
    });

    it('when unknown fields are sent, then they are ignored and never stored', async () => {
      const response = await api().request('POST', '/plants', {
        json: '{"id":5,"name":"x","owner":"eve","nested":{"a":[1,2.5]},"id2":1e999}',
      });

      expect(JSON.parse(response.text)).to.deep.equal({ name: 'x' });
      expect(JSON.parse((await api().request('GET', '/plants')).text)).to.deep.equal([
        { name: 'x' },
      ]);
    });

    for (const [label, body] of [
      ['not JSON', '{"id":1,'],
      ['an array', '[{"id":1,"name":"x"}]'],
      ['a string', '"plant"'],
      ['empty', ''],
      ['followed by garbage', '{"id":1,"name":"x"} x'],
      ['deeply nested', '['.repeat(20000)],
    ] as const) {
      it(`when the body is ${label}, then 400 40001`, async () => {
        expectError(await api().request('POST', '/plants', { json: body }), 400, 40001);
      });
    }

    it('when the body is not valid UTF-8, then 400 40001 and nothing is stored', async () => {
      const bytes = Buffer.concat([
        Buffer.from('{"id":1,"name":"'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}'),
      ]);
      const response = await api().request('POST', '/plants', {
        headers: [['Content-Type', 'application/json']],
        body: bytes,
      });

      expectError(response, 400, 40001);
      expect(await api().names()).to.deep.equal([]);
    });

    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=latin1',
      'application/jsonx',
    ]) {
      it(`when Content-Type is ${type}, then 415 41501`, async () => {
        const response = await api().request('POST', '/plants', {
          headers: [['Content-Type', type]],
          body: '{"id":1,"name":"x"}',
        });
        expectError(response, 415, 41501);
      });
    }

    it('when Content-Type is missing, then 415 41501', async () => {
      expectError(
        await api().request('POST', '/plants', { body: '{"id":1,"name":"x"}' }),
        415,
        41501,
      );
    });

    it('when Content-Type is APPLICATION/JSON; charset=UTF-8, then it is accepted', async () => {
      const response = await api().request('POST', '/plants', {
        headers: [['Content-Type', 'APPLICATION/JSON; charset=UTF-8']],
        body: '{"id":1,"name":"x"}',
      });
      expect(response.status).to.equal(200);
    });

    it('when the body is gzip-encoded (coding names in any case), then it is decoded; an unknown encoding is 415 41501', async () => {
      const headers: [string, string][] = [['Content-Type', 'application/json']];
      const zipped = gzipSync('{"id":1,"name":"zipped"}');

      const ok = await api().request('POST', '/plants', {
        headers: [...headers, ['Content-Encoding', 'GZip']],
        body: zipped,
      });
      const unknown = await api().request('POST', '/plants', {
        headers: [...headers, ['Content-Encoding', 'zstd']],
        body: '{}',
      });

      expect([ok.status, ok.text]).to.deep.equal([200, '{"name":"zipped"}']);
      expectError(unknown, 415, 41501);
    });

    for (const encoding of ['gzip', 'deflate', 'br']) {
      it(`when a ${encoding} body is corrupt or cut short, then 400 40001 and nothing is stored`, async () => {
        const headers: [string, string][] = [
          ['Content-Type', 'application/json'],
          ['Content-Encoding', encoding],
        ];
        const whole = gzipSync('{"id":1,"name":"zipped"}');

        const garbage = await api().request('POST', '/plants', {
          headers,
          body: '{"id":1,"name":"x"}',
        });
        const cut = await api().request('POST', '/plants', {
          headers,
          body: whole.subarray(0, 12),
        });

        expectError(garbage, 400, 40001);
        expectError(cut, 400, 40001);
        expect(await api().names()).to.deep.equal([]);
      });
    }

    it('when the body is exactly 65536 bytes, then it is accepted; one more byte, then 413 41301', async () => {
      const base = '{"id":1,"name":"x"}';
      const exact = base + ' '.repeat(65536 - base.length);

      expect((await api().request('POST', '/plants', { json: exact })).status).to.equal(200);
      expectError(
        await api().request('POST', '/plants', { json: exact.replace('1', '2') + ' ' }),
        413,
        41301,
      );
      expect(await api().names()).to.deep.equal(['x']);
    });

    it('when the id is taken in the tenant, then 409 40901 and the first plant stays', async () => {
      await api().create('7', 'first');

      expectError(await api().create('7', 'second'), 409, 40901);
      expect(await api().names()).to.deep.equal(['first']);
    });

    it('when 20 creates of one id race, then exactly one answers 200', async () => {
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => api().create('99', `racer ${i}`)),
      );

      expect(responses.filter((r) => r.status === 200)).to.have.length(1);
      expect(responses.filter((r) => r.status === 409)).to.have.length(19);
    });
  });
}
