import {
  chmodSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { send } from '../../support/http-client.js';
import { eventually } from '../../support/raw-client.js';
import { CLI, startService, type ServiceProcess } from '../../support/service-process.js';
import { plantStore, TOKEN_SHAPE } from '../../support/token-lifecycle.js';

const VICTIM_TEXT = 'someone else’s file\n';
// Pids the next programs may get: the kernel hands them out in order from the last one given.
const PIDS_AHEAD = 3000;

/** The pids the next processes will likely get (other processes on the machine take some too). */
function nextPids(): number[] {
  const last = Number(readFileSync('/proc/sys/kernel/ns_last_pid', 'utf8'));
  const max = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
  return Array.from({ length: PIDS_AHEAD }, (_, i) => ((last + i) % max) + 1);
}

describe('Files the service and the CLI write (memory storage)', function () {
  this.timeout(60_000);
  let directory: string;
  let victim: string;
  let env: Record<string, string>;
  let server: ServiceProcess | undefined;
  const tokenFile = () => join(directory, 'tokens.json');

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'plant-store-file-writes-'));
    victim = join(mkdtempSync(join(tmpdir(), 'plant-store-victim-')), 'victim.txt');
    writeFileSync(victim, VICTIM_TEXT);
    chmodSync(victim, 0o644);
    env = {
      PLANT_STORE_TOKEN_FILE: tokenFile(),
      PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
    };
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    rmSync(directory, { recursive: true, force: true });
    rmSync(join(victim, '..'), { recursive: true, force: true });
  });

  /** A symlink to the victim at the old temporary name `<file>.<pid>.tmp` of each pid. */
  const plant = (file: string, pids: number[]) => {
    for (const pid of pids) symlinkSync(victim, `${join(directory, file)}.${pid}.tmp`);
  };

  /** The victim is as it was, and each file is a regular file of its owner's only. */
  const expectSafe = (...files: string[]) => {
    expect(readFileSync(victim, 'utf8')).to.equal(VICTIM_TEXT);
    expect(statSync(victim).mode & 0o777).to.equal(0o644);
    for (const file of files) {
      const stats = lstatSync(join(directory, file));
      expect(stats.isFile(), `${file} is a regular file, not a symlink`).to.equal(true);
      expect(stats.mode & 0o777, file).to.equal(0o600);
    }
    const left = readdirSync(directory).filter((name) => /\.[0-9a-f]{24}\.tmp$/.test(name));
    expect(left, 'temporaries left behind').to.deep.equal([]);
  };

  it('when `tokens create` and `webhooks add` run with a symlink at every `<file>.<pid>.tmp` their pid could give, then no symlink is followed and the files are 0600', async () => {
    const pids = nextPids();
    plant('tokens.json', pids);
    plant('webhooks.json', pids);

    const created = await plantStore(
      ['tokens', 'create', '--tenant', 'files', '--scope', 'plants:read'],
      env,
    );
    const added = await plantStore(
      ['webhooks', 'add', '--tenant', 'files', '--url', 'http://127.0.0.1:9/hook'],
      env,
    );

    expect(created.code, created.stderr).to.equal(0);
    expect(created.stdout.trim()).to.match(TOKEN_SHAPE);
    expect(added.code, added.stderr).to.equal(0);
    expectSafe('tokens.json', 'webhooks.json');
  });

  it('when a symlink to /dev/zero is planted at the webhook file’s lock, then `webhooks add` gives up within seconds, reading nothing of it', async () => {
    symlinkSync('/dev/zero', join(directory, 'webhooks.json.lock'));
    const started = Date.now();

    const added = await plantStore(
      ['webhooks', 'add', '--tenant', 'files', '--url', 'http://127.0.0.1:9/hook'],
      env,
    );

    expect(added.code).to.equal(1);
    expect(added.stderr).to.match(/stayed locked for 2 s; if no command is running, remove/);
    expect(Date.now() - started).to.be.below(15_000);
  });

  it('when the running server records a managed token’s use and opens its outbox with symlinks at their old temporary names, then no symlink is followed and the files are 0600', async () => {
    const created = await plantStore(
      ['tokens', 'create', '--tenant', 'files', '--scope', 'plants:read'],
      env,
    );
    expect(created.code, created.stderr).to.equal(0);
    const pids = nextPids();
    plant('tokens.json.last-used', pids);
    plant('webhook-outbox.jsonl', pids);
    server = await startService(env, [...CLI, 'serve']);
    // The server's own pid, whatever the range held (its pid is visible to anyone on the host).
    if (!pids.includes(server.pid)) plant('tokens.json.last-used', [server.pid]);

    const answer = await send(server.port, 'GET', '/plants', {
      headers: [['Authorization', `Bearer ${created.stdout.trim()}`]],
    });
    expect(answer.status).to.equal(200);
    const written = (file: string) =>
      lstatSync(join(directory, file), { throwIfNoEntry: false }) !== undefined;
    await eventually(
      () => written('tokens.json.last-used') && written('webhook-outbox.jsonl'),
      5000,
      'the last-use file and the outbox journal written',
    );

    expectSafe('tokens.json', 'tokens.json.last-used', 'webhook-outbox.jsonl');
  });
});
