import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'chai';
import type { HttpResponse } from './http-client.js';

type Operation = { responses: Record<string, { content?: Record<string, unknown> }> };
type Document = { paths: Record<string, Record<string, Operation>> };

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** Checks real responses against the served OpenAPI document: status, media type and body schema. */
export class OpenApiValidator {
  private readonly ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  private readonly templates: { method: string; template: string; regex: RegExp }[] = [];

  constructor(private readonly document: Document) {
    this.ajv.addSchema(document, 'openapi');
    for (const [template, methods] of Object.entries(document.paths)) {
      const regex = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}/?$`);
      for (const method of Object.keys(methods)) this.templates.push({ method, template, regex });
    }
  }

  /** Fails unless the response is one the document describes for this request. */
  check(method: string, path: string, response: HttpResponse): void {
    const pathname = path.split('?', 1)[0]!;
    const known = this.templates.find(
      (t) =>
        t.regex.test(pathname) && t.method === (method === 'HEAD' ? 'get' : method.toLowerCase()),
    );
    const where = `${method} ${path} -> ${response.status}`;
    if (known === undefined) {
      // Outside the operations (unknown route or method): still the Error body (none for HEAD).
      if (response.status >= 400 && method !== 'HEAD') {
        this.validate('#/components/schemas/Error', response, where);
      }
      return;
    }
    const operation = this.document.paths[known.template]![known.method]!;
    const described = operation.responses[String(response.status)];
    expect(described, `${where}: status not in the OpenAPI document`).to.not.equal(undefined);
    const ref = pointer(
      'paths',
      known.template,
      known.method,
      'responses',
      String(response.status),
    );
    if (described!.content === undefined) {
      expect(response.text, `${where}: body where the document has none`).to.equal('');
      expect(response.headers['content-type'], `${where}: content type without body`).to.equal(
        undefined,
      );
      return;
    }
    if (method === 'HEAD') return;
    this.validate(`#/${ref}/content/application~1json/schema`, response, where);
  }

  private validate(ref: string, response: HttpResponse, where: string): void {
    expect(response.headers['content-type'], where).to.equal('application/json; charset=utf-8');
    const validate = this.ajv.getSchema(`openapi${ref}`);
    expect(validate, `${where}: no schema at ${ref}`).to.not.equal(undefined);
    const body: unknown = JSON.parse(response.text);
    expect(
      validate!(body),
      `${where}: ${this.ajv.errorsText(validate!.errors)} in ${response.text}`,
    ).to.equal(true);
  }
}
