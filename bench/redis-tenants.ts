// Export time of a Redis store of N tenants holding one plant each, for each N given in ascending
// order (`node --import tsx bench/redis-tenants.ts 10000 100000`), on a redis-server of its own:
// what docs/storage-redis.md quotes for tenants(). The keys are written straight, not imported.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';

const { openRedisStorage } = await import('../src/adapters/storage/redis/open-redis-storage.js');
const { exportPlants } = await import('../src/application/plant-export.js');
const { encodeMember, plantsKey } =
  await import('../src/adapters/storage/redis/redis-plant-codec.js');
const counts = process.argv.slice(2).map(Number);
const port = 20000 + Math.floor(Math.random() * 20000);
const child = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], {
  stdio: 'ignore',
});
await sleep(300);
const raw = new Redis({ port });
const prefix = 'plant-store:';
try {
  let have = 0;
  for (const n of counts) {
    for (let i = have; i < n; i += 5000) {
      const p = raw.pipeline();
      for (let j = i; j < Math.min(n, i + 5000); j++)
        p.zadd(
          plantsKey(prefix, `tenant-${String(j).padStart(7, '0')}`),
          0,
          encodeMember({ id: 1n, name: 'p' }),
        );
      await p.exec();
    }
    have = n;
    await raw.config('RESETSTAT');
    const storage = await openRedisStorage({ url: `redis://127.0.0.1:${port}`, prefix });
    const started = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    let lines = 0;
    for await (const line of exportPlants(storage.plants)) lines += line === '' ? 0 : 1;
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const used = process.cpuUsage(cpu);
    const stats = (await raw.info('commandstats')).match(/cmdstat_scan:calls=(\d+)/)?.[1];
    console.log(
      `${n} tenants: ${lines - 2} plants exported in ${(ms / 1000).toFixed(2)} s (cpu ${((used.user + used.system) / 1e6).toFixed(2)} s), SCAN calls ${stats}, heap ${(process.memoryUsage().heapUsed / 1e6).toFixed(1)} MB`,
    );
    await storage.close();
  }
} finally {
  raw.disconnect();
  child.kill('SIGKILL');
}
