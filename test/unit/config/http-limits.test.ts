import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../src/config/index.js';
import { defaultMaxConnections } from '../../../src/config/http-limits.js';

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  return expect.fail('accepted');
}

const limitsFile = (text: string): string => {
  const file = join(mkdtempSync(join(tmpdir(), 'limits-')), 'limits');
  writeFileSync(file, text);
  return file;
};

describe('HTTP limits configuration', () => {
  it('when every limit is set, then each is read into its field', () => {
    const config = loadConfig({
      PLANT_STORE_HEADERS_TIMEOUT_MS: '1000',
      PLANT_STORE_REQUEST_TIMEOUT_MS: '2000',
      PLANT_STORE_KEEP_ALIVE_TIMEOUT_MS: '3000',
      PLANT_STORE_IDLE_TIMEOUT_MS: '4000',
      PLANT_STORE_SEND_TIMEOUT_MS: '5000',
      PLANT_STORE_MAX_BUFFERED_OUTPUT_BYTES: '1048576',
      PLANT_STORE_MAX_CONNECTIONS: '100',
      PLANT_STORE_MAX_CONNECTIONS_PER_ADDRESS: '10',
      PLANT_STORE_MAX_CONNECTIONS_PER_NETWORK: '40',
      PLANT_STORE_LISTEN_BACKLOG: '4096',
      PLANT_STORE_AUTH_FAILURE_LIMIT: '0',
    });

    expect(config.http).to.include({
      headersTimeoutMs: 1000,
      requestTimeoutMs: 2000,
      keepAliveTimeoutMs: 3000,
      idleTimeoutMs: 4000,
      sendTimeoutMs: 5000,
      maxBufferedOutputBytes: 1048576,
      maxConnections: 100,
      maxConnectionsPerAddress: 10,
      maxConnectionsPerNetwork: 40,
      backlog: 4096,
    });
    expect(config.authFailureLimit).to.equal(0);
  });

  it('when a limit is not a whole number in range, then a one-line error names the variable', () => {
    expect(refusal({ PLANT_STORE_REQUEST_TIMEOUT_MS: '1.5' })).to.match(
      /^PLANT_STORE_REQUEST_TIMEOUT_MS must be a whole number from 1 to/,
    );
    expect(refusal({ PLANT_STORE_LISTEN_BACKLOG: '0' })).to.match(/^PLANT_STORE_LISTEN_BACKLOG/);
    expect(refusal({ PLANT_STORE_AUTH_FAILURE_LIMIT: '-1' })).to.match(
      /^PLANT_STORE_AUTH_FAILURE_LIMIT/,
    );
  });

  it('when no per-address bound is set, then it is 128', () => {
    expect(loadConfig({}).http).to.include({ maxConnectionsPerAddress: 128 });
  });

  it('when the headers timeout exceeds the request timeout, then start-up is refused', () => {
    expect(
      refusal({ PLANT_STORE_HEADERS_TIMEOUT_MS: '5000', PLANT_STORE_REQUEST_TIMEOUT_MS: '4000' }),
    ).to.equal('PLANT_STORE_HEADERS_TIMEOUT_MS must not exceed PLANT_STORE_REQUEST_TIMEOUT_MS');
  });

  it('when the open-file limit is low, then the default connection bound stays below it', () => {
    const low = limitsFile(
      'Max open files            1024                 4096                 files\n',
    );
    const high = limitsFile(
      'Max open files            1048576              1048576              files\n',
    );

    expect(defaultMaxConnections(low)).to.equal(1024 - 128);
    expect(defaultMaxConnections(high)).to.equal(4096);
    expect(defaultMaxConnections('/nonexistent/limits')).to.equal(4096);
  });
});
