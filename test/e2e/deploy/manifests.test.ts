import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { parse, parseAllDocuments } from 'yaml';
import { openApiDocument } from '../../../src/adapters/http/docs/openapi.js';

const read = (path: string) => readFile(new URL(`../../../${path}`, import.meta.url), 'utf8');

/** What the Dockerfile's runtime stage promises: the facts the deployment files must agree with. */
async function image() {
  const text = (await read('Dockerfile')).replace(/^#.*\n/gm, '').replace(/\\\n/g, ' ');
  const runtime = text.slice(text.lastIndexOf('\nFROM '));
  const env = Object.fromEntries(
    [...runtime.matchAll(/^ENV (.*)$/gm)].flatMap((match) =>
      [...match[1]!.matchAll(/(\w+)=(\S+)/g)].map((pair) => [pair[1]!, pair[2]!]),
    ),
  );
  const user = /^USER (\S+)$/m.exec(runtime)![1]!;
  const uid = Number(
    new RegExp(`useradd [^\\n]*--uid (\\d+)[^\\n]* ${user}(?:\\s|$)`).exec(runtime)![1],
  );
  return {
    runtime,
    port: Number(env.PORT),
    dataDir: env.PLANT_STORE_DATA_DIR!,
    uid,
    volumes: JSON.parse(/^VOLUME (.*)$/m.exec(runtime)![1]!) as string[],
    entrypoint: JSON.parse(/^ENTRYPOINT (.*)$/m.exec(runtime)![1]!) as string[],
    healthcheck: /^HEALTHCHECK .* CMD (\[.*\])$/m.exec(runtime)?.[1],
  };
}

interface Container {
  ports: { name: string; containerPort: number }[];
  env?: { name: string; value?: string }[];
  livenessProbe: { httpGet: { path: string; port: string } };
  readinessProbe: { httpGet: { path: string; port: string } };
  resources: { requests: object; limits: { memory: string } };
  securityContext: { readOnlyRootFilesystem: boolean; allowPrivilegeEscalation: boolean };
  volumeMounts?: { name: string; mountPath: string }[];
}

/** The parts of a Service, Deployment or StatefulSet the checks read. */
interface Manifest {
  kind: string;
  spec: {
    replicas?: number;
    ports?: { targetPort: string }[];
    template?: {
      spec: {
        securityContext: { runAsNonRoot: boolean; runAsUser: number };
        containers: Container[];
      };
    };
    volumeClaimTemplates?: { metadata: { name: string } }[];
  };
}

const ROUTES = Object.keys(openApiDocument.paths);

describe('the Dockerfile and the deployment files (deploy/)', () => {
  it('when the Dockerfile is read, then its runtime runs as a non-root user under tini, with the data directory a volume and a health check by node', async () => {
    const built = await image();
    expect(built.uid).to.be.above(0);
    expect(built.volumes).to.deep.equal([built.dataDir]);
    expect(built.entrypoint.slice(0, 3)).to.deep.equal(['tini', '--', 'node']);
    expect(built.healthcheck).to.include('node').and.include('/healthz');
    expect(built.runtime).to.not.match(/\b(?:g\+\+|make|python3|curl)\b/);
    expect(ROUTES).to.include.members(['/healthz', '/readyz']);
  });

  it('when the Kubernetes manifests are parsed, then their ports, probes, data directory and user are the image`s', async () => {
    const built = await image();
    const kinds: string[] = [];
    for (const file of ['embedded', 'redis']) {
      const documents = parseAllDocuments(await read(`deploy/kubernetes/${file}.yaml`)).map(
        (document) => document.toJS() as Manifest,
      );
      const service = documents.find(({ kind }) => kind === 'Service')!;
      const workload = documents.find(({ kind }) => kind !== 'Service')!;
      kinds.push(`${workload.kind}:${workload.spec.replicas}`);
      const pod = workload.spec.template!.spec;
      expect(pod.securityContext.runAsNonRoot, file).to.equal(true);
      expect(pod.securityContext.runAsUser, file).to.equal(built.uid);
      const [container] = pod.containers;
      expect(container!.ports).to.deep.equal([{ name: 'http', containerPort: built.port }]);
      expect(service.spec.ports![0]!.targetPort).to.equal('http');
      expect(container!.livenessProbe.httpGet).to.deep.equal({ path: '/healthz', port: 'http' });
      expect(container!.readinessProbe.httpGet).to.deep.equal({ path: '/readyz', port: 'http' });
      expect(container!.resources.limits.memory, file).to.be.a('string');
      expect(container!.securityContext).to.include({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
      });
      if (workload.kind === 'StatefulSet') {
        const [claim] = workload.spec.volumeClaimTemplates!;
        expect(container!.volumeMounts).to.deep.equal([
          { name: claim!.metadata.name, mountPath: built.dataDir },
        ]);
      } else {
        const storage = container!.env!.find(({ name }) => name === 'PLANT_STORE_STORAGE');
        expect(storage?.value).to.be.oneOf(['redis', 'mongodb']);
      }
    }
    expect(kinds.sort()).to.deep.equal(['Deployment:3', 'StatefulSet:1']);
  });

  it('when the compose files are parsed, then the embedded one keeps the data directory in a volume and the Redis one runs two replicas on Redis', async () => {
    const built = await image();
    type Service = {
      ports: string[];
      volumes?: string[];
      environment?: Record<string, string>;
      deploy?: { replicas: number };
    };
    const embedded = parse(await read('deploy/compose.yaml')) as {
      services: Record<string, Service>;
    };
    const store = embedded.services['plant-store']!;
    expect(store.volumes).to.deep.equal([`plant-store-data:${built.dataDir}`]);
    expect(store.ports[0]!.endsWith(`:${built.port}`)).to.equal(true);

    const shared = parse(await read('deploy/compose.redis.yaml')) as {
      services: Record<string, Service>;
    };
    const replica = shared.services['plant-store']!;
    expect(replica.deploy?.replicas).to.equal(2);
    expect(replica.environment?.PLANT_STORE_STORAGE).to.equal('redis');
    expect(replica.environment?.REDIS_URL).to.match(/^redis:\/\/redis:/);
    expect(Object.keys(shared.services)).to.include('redis');
  });
});
