import { existsSync, mkdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { send } from '../../support/http-client.js';
import { serverMissing } from '../../support/server-requirement.js';
import { startService, type ServiceProcess } from '../../support/service-process.js';

// Debian's chromium (scripts/install-chromium.sh); playwright-core downloads no browser of its own.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUTPUT = fileURLToPath(new URL('../../../test-output/', import.meta.url));
const TOKEN = 'docs-browser-token-0123456789';
const LARGE_ID = '9007199254740993';

// One page goes through the steps a person takes, in order: open, authorize, create, list, delete.
describe('the API reference at /docs, in a real browser', function () {
  // Each step takes about a second on an idle machine; the margin is for a busy one.
  this.timeout(60_000);
  let service: ServiceProcess | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let origin: string;
  const foreign: string[] = [];
  const errors: string[] = [];
  const sentBodies: string[] = [];

  const api = (method: string, path: string, body?: string) =>
    send(service!.port, method, path, {
      headers: [
        ['Authorization', `Bearer ${TOKEN}`],
        ...(body === undefined ? [] : [['Content-Type', 'application/json'] as [string, string]]),
      ],
      ...(body !== undefined && { body }),
    });
  const operation = (id: string) => page.locator(`#operations-plants-${id}`);

  /** Uses a control the way a keyboard user does: focus it, then Enter. */
  async function press(control: Locator): Promise<void> {
    await control.focus();
    await page.keyboard.press('Enter');
  }

  /** Presses Execute on an open operation and reads the response the page shows. */
  async function execute(block: Locator): Promise<{ status: string; text: string }> {
    // Clearing the previous answer first, so that the wait below sees only the new one.
    const clear = block.locator('button.btn-clear');
    if ((await clear.count()) > 0) await clear.click();
    await press(block.locator('button.execute'));
    const live = block.locator('.live-responses-table');
    await live.waitFor();
    return {
      status: (await live.locator('tr.response td.response-col_status').first().innerText()).trim(),
      text: await live.innerText(),
    };
  }

  function expectOnlyOwnOriginAndNoConsoleErrors(): void {
    expect(foreign, 'requests to other origins').to.deep.equal([]);
    expect(errors, 'console errors (CSP violations included)').to.deep.equal([]);
  }

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      serverMissing(this, 'Chromium', `${CHROMIUM} not found (scripts/install-chromium.sh)`);
    }
    // Both take seconds: start them side by side.
    [service, browser] = await Promise.all([
      startService({
        PLANT_STORE_STORAGE: 'memory',
        PLANT_STORE_TOKENS: JSON.stringify([
          { token: TOKEN, tenant: 'docs-browser', scopes: ['plants:read', 'plants:write'] },
        ]),
      }),
      chromium.launch({ executablePath: CHROMIUM }),
    ]);
    origin = `http://127.0.0.1:${service.port}`;
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith('data:') && new URL(url).origin !== origin) foreign.push(url);
      if (request.method() === 'POST') sentBodies.push(request.postData() ?? '');
    });
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    mkdirSync(OUTPUT, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('when /docs is opened, then its operations and the plant.created webhook render under its own title, icon and CSP', async () => {
    const response = await page.goto(`${origin}/docs`);
    await page.locator('.opblock').nth(2).waitFor();

    expect(response!.headers()['content-security-policy']).to.include("default-src 'none'");
    expect(await page.title()).to.equal('Plant store API reference');
    expect(await page.locator('link[rel=icon]').getAttribute('href')).to.match(/^docs\/assets\//);
    // Four plant operations, health, readiness and metrics, and one webhook (Swagger UI lists
    // webhooks as operations too).
    expect(await page.locator('.opblock-summary').allInnerTexts()).to.have.lengthOf(8);
    // Swagger UI lists what it could not read or resolve of the document here.
    expect(await page.locator('.errors-wrapper').count()).to.equal(0);
    for (const id of ['listPlants', 'createPlant', 'getPlant', 'deletePlant']) {
      expect(await operation(id).count(), id).to.equal(1);
    }
    for (const id of ['getHealth', 'getReadiness', 'getMetrics']) {
      expect(await page.locator(`#operations-operations-${id}`).count(), id).to.equal(1);
    }
    expectOnlyOwnOriginAndNoConsoleErrors();
  });

  it('when a token is entered and the example create is executed, all by keyboard, then the id 9007199254740993 is stored exactly', async () => {
    await press(page.locator('.auth-wrapper button.authorize'));
    await page.locator('.modal-ux input').waitFor();
    await page.keyboard.type(TOKEN);
    await page.keyboard.press('Enter');
    await page.locator('.modal-ux button:has-text("Logout")').waitFor();
    await page.keyboard.press('Escape');

    const create = operation('createPlant');
    await press(create.locator('button.opblock-summary-control'));
    const example = await create.locator('textarea.body-param__text').inputValue();
    const created = await execute(create);
    await create.locator('.live-responses-table').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${OUTPUT}docs-try-it-create.png` });

    expect(example).to.include(`"id": ${LARGE_ID}`);
    expect(sentBodies.at(-1)).to.include(`"id": ${LARGE_ID}`);
    expect(created.status).to.equal('200');
    expect(created.text).to.include('"name": "Monstera deliciosa"');
    // Rounded through a double the id would be ...992: that id does not exist.
    expect((await api('DELETE', '/plants/9007199254740992')).status).to.equal(404);
    expectOnlyOwnOriginAndNoConsoleErrors();
  });

  it('when the list is executed with limit 2 and then the Link cursor, then the plant is on the second page', async () => {
    for (const id of [1, 2]) {
      const response = await api('POST', '/plants', `{"id":${id},"name":"Seedling ${id}"}`);
      expect(response.status, response.text).to.equal(200);
    }
    const list = operation('listPlants');
    await press(list.locator('button.opblock-summary-control'));

    const first = await execute(list);
    const cursor = /link: <[^>]*[?&]cursor=([A-Za-z0-9_-]+)>; rel="next"/.exec(first.text)?.[1];
    await list.locator('tr[data-param-name="cursor"] input').fill(cursor ?? '');
    const second = await execute(list);

    expect(await list.locator('tr[data-param-name="limit"] input').inputValue()).to.equal('2');
    expect(first.status).to.equal('200');
    expect(first.text).to.include('Seedling 1').and.include('Seedling 2');
    expect(first.text).to.not.include('Monstera');
    expect(cursor, first.text).to.be.a('string');
    expect(second.status).to.equal('200');
    expect(second.text).to.include('Monstera deliciosa');
    expectOnlyOwnOriginAndNoConsoleErrors();
  });

  it('when the example delete is executed, then it answers 204 and the plant is gone', async () => {
    const remove = operation('deletePlant');
    await press(remove.locator('button.opblock-summary-control'));

    expect(await remove.locator('tr[data-param-name="id"] input').inputValue()).to.equal(LARGE_ID);
    const deleted = await execute(remove);

    expect(deleted.status).to.equal('204');
    expect((await api('GET', '/plants')).text).to.not.include('Monstera');
    expectOnlyOwnOriginAndNoConsoleErrors();
  });

  it('when shown at desktop and at phone width, then nothing overflows sideways and screenshots are saved', async () => {
    // Only the create operation stays open: less to lay out again at each width.
    for (const id of ['listPlants', 'deletePlant']) {
      await press(operation(id).locator('button.opblock-summary-control'));
    }
    for (const [name, width, height] of [
      ['desktop', 1280, 900],
      ['phone', 390, 844],
    ] as const) {
      await page.setViewportSize({ width, height });
      // Page code as text: the tests have no DOM types.
      await page.evaluate('window.scrollTo(0, 0)');
      await page.screenshot({ path: `${OUTPUT}docs-${name}.png` });
      await page.evaluate(
        'document.getElementById("operations-plants-createPlant").scrollIntoView()',
      );
      await page.screenshot({ path: `${OUTPUT}docs-${name}-create.png` });

      for (const shot of ['', '-create']) {
        const path = `${OUTPUT}docs-${name}${shot}.png`;
        expect(statSync(path).size, path).to.be.greaterThan(10_000);
      }
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      expect(overflow, `${name}: page wider than the screen`).to.be.at.most(0);
    }
    expectOnlyOwnOriginAndNoConsoleErrors();
  });
});
