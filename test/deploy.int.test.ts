// Validates deploy/ without a container engine (none on these machines): every YAML parses, the
// compose file's references hold (services, health checks, depends_on, one published port), the
// Dockerfiles are multi-stage, Node 20 slim and non-root, the Kubernetes objects reference each
// other correctly (probes, resources, HPA, Ingress, ConfigMap/Secret), and every setting a
// service's env schema reads is provided by compose and by Kubernetes and documented in
// docs/operations.md. Reads files only.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** The services, the compose services and Kubernetes Deployments that run them. */
const SERVICES = {
  indexer: { compose: ["indexer"], k8s: ["indexer"], port: 3004 },
  "query-api": { compose: ["query-api"], k8s: ["query-api"], port: 3001 },
  "metadata-api": {
    compose: ["metadata-api", "metadata-worker"],
    k8s: ["metadata-api", "metadata-worker"],
    port: 3002,
  },
  "oracle-price": { compose: ["oracle-price"], k8s: ["oracle-price"], port: 3003 },
  gateway: { compose: ["gateway"], k8s: ["gateway"], port: 8080 },
} as const;
type ServiceName = keyof typeof SERVICES;

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML is untyped
type Yaml = any;

function walk(dir: string, keep: (file: string) => boolean): string[] {
  const out: string[] = [];
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "dist" && entry.name !== "generated")
        out.push(...walk(full, keep));
    } else if (keep(full)) out.push(full);
  }
  return out;
}

/**
 * Names of the environment variables a service reads: the keys of every zod env schema in its
 * sources (files that extend `baseEnvSchema`), plus the base keys (NODE_ENV, LOG_LEVEL, HOST).
 */
function envNamesOf(service: ServiceName): string[] {
  const names = new Set<string>();
  const keys = (text: string) => {
    for (const match of text.matchAll(/^\s+([A-Z][A-Z0-9_]*[A-Z0-9]):\s/gm)) names.add(match[1]!);
  };
  keys(read("packages/shared/src/env/index.ts"));
  const files = walk(
    join(ROOT, "services", service, "src"),
    (f) => f.endsWith(".ts") && !f.endsWith(".test.ts"),
  );
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    if (text.includes("baseEnvSchema")) keys(text);
  }
  return [...names].sort();
}

const compose: Yaml = parse(read("deploy/compose.yaml"), { merge: true });
const k8sFiles = readdirSync(join(ROOT, "deploy/k8s")).filter((f) => f.endsWith(".yaml"));
const k8sObjects: Yaml[] = k8sFiles.flatMap((file) =>
  parseAllDocuments(read(`deploy/k8s/${file}`))
    .map((doc) => doc.toJS())
    .filter((o) => o),
);
const byKind = (kind: string) => k8sObjects.filter((o) => o.kind === kind);
const findObject = (kind: string, name: string) => byKind(kind).find((o) => o.metadata?.name === name);

describe("deploy", () => {
  it("behavior: every YAML file under deploy/ parses without errors or warnings", () => {
    const files = walk(join(ROOT, "deploy"), (f) => /\.ya?ml$/.test(f));
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const file of files) {
      for (const doc of parseAllDocuments(readFileSync(file, "utf8"), { merge: true })) {
        expect(doc.errors.map(String), file).toEqual([]);
        expect(doc.warnings.map(String), file).toEqual([]);
      }
    }
  });

  it("behavior: compose runs every service, the worker, the stores and the migration job", () => {
    const names = Object.keys(compose.services);
    for (const name of [
      "postgres",
      "redis",
      "minio",
      "migrate",
      "metadata-worker",
      ...Object.keys(SERVICES),
    ]) {
      expect(names, name).toContain(name);
    }
    expect(compose.services.migrate.command.join(" ")).toContain("prisma/dist/migrate-cli.js");
    expect(compose.services["metadata-worker"].command.join(" ")).toContain(
      "services/metadata-api/dist/worker.js",
    );
  });

  it("behavior: compose depends_on names existing services with valid conditions", () => {
    for (const [name, service] of Object.entries<Yaml>(compose.services)) {
      const deps = service.depends_on ?? {};
      const entries: [string, Yaml][] = Array.isArray(deps)
        ? deps.map((d: string) => [d, {}])
        : Object.entries(deps);
      for (const [dep, spec] of entries) {
        expect(compose.services[dep], `${name} depends on unknown ${dep}`).toBeDefined();
        const condition = spec?.condition ?? "service_started";
        expect(["service_started", "service_healthy", "service_completed_successfully"]).toContain(condition);
        if (condition === "service_healthy") {
          expect(
            compose.services[dep].healthcheck,
            `${name} waits for ${dep} to be healthy: it needs a healthcheck`,
          ).toBeDefined();
        }
        if (condition === "service_completed_successfully") {
          expect(compose.services[dep].restart, `${dep} is a one-shot job`).toBeUndefined();
        }
      }
    }
    // Every long-running application service waits for the migrations.
    for (const name of ["indexer", "query-api", "metadata-api", "metadata-worker"]) {
      expect(compose.services[name].depends_on?.migrate?.condition).toBe("service_completed_successfully");
    }
  });

  it("behavior: every long-running compose service has a health check, and only the gateway publishes a port", () => {
    for (const [name, service] of Object.entries<Yaml>(compose.services)) {
      const oneShot = name === "migrate" || name === "minio-setup";
      if (!oneShot) {
        expect(service.healthcheck, name).toBeDefined();
        const test = service.healthcheck.test;
        expect(Array.isArray(test) ? ["CMD", "CMD-SHELL"] : [], name).toContain(
          Array.isArray(test) ? test[0] : "",
        );
      }
      if (name === "gateway") expect(service.ports).toHaveLength(1);
      else expect(service.ports, `${name} must not publish a port`).toBeUndefined();
    }
    const { port } = SERVICES.gateway;
    expect(String(compose.services.gateway.ports[0])).toMatch(new RegExp(`:${port}$`));
  });

  it("behavior: compose Redis keeps an append-only file and never evicts keys", () => {
    const command = compose.services.redis.command.join(" ");
    expect(command).toContain("--appendonly yes");
    expect(command).toContain("--maxmemory-policy noeviction");
    expect(compose.services.redis.volumes.join(" ")).toContain(":/data");
    expect(compose.services.postgres.volumes.join(" ")).toContain(":/var/lib/postgresql/data");
  });

  it("behavior: compose builds refer to existing Dockerfiles", () => {
    for (const [name, service] of Object.entries<Yaml>(compose.services)) {
      if (!service.build) continue;
      const file = join(ROOT, "deploy", service.build.context, service.build.dockerfile);
      expect(existsSync(file), `${name}: ${file}`).toBe(true);
    }
  });

  it("behavior: one multi-stage, Node 20 slim, non-root Dockerfile per service", () => {
    for (const [service, { port }] of Object.entries(SERVICES)) {
      const text = read(`deploy/docker/${service}.Dockerfile`);
      const stages = [...text.matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]);
      expect(stages.length, service).toBeGreaterThanOrEqual(2);
      expect(text).toMatch(/ARG NODE_IMAGE=node:20-[a-z]+-slim/);
      expect(text).toMatch(/^USER node$/m);
      // The last stage runs as the `node` user: USER comes after the last FROM.
      expect(text.lastIndexOf("USER node")).toBeGreaterThan(text.lastIndexOf("\nFROM "));
      expect(text).toContain(`EXPOSE ${port}`);
      expect(text).toContain(`services/${service}/dist/main.js`);
      expect(text).toContain("--prod");
      expect(existsSync(join(ROOT, `deploy/docker/${service}.Dockerfile.dockerignore`)), service).toBe(true);
      // The dependency layer copies every workspace manifest (a frozen install needs them all).
      for (const manifest of workspaceManifests()) {
        expect(text, `${service}: COPY ${manifest}`).toMatch(
          new RegExp(`^COPY ${manifest.replaceAll(".", "\\.")} `, "m"),
        );
      }
      // Everything the image copies exists in the repository.
      for (const match of text.matchAll(/^COPY (?!--from)(.+) (\S+)$/gm)) {
        for (const source of match[1]!.split(/\s+/))
          expect(existsSync(join(ROOT, source)), `${service}: COPY ${source}`).toBe(true);
      }
    }
  });

  it("behavior: Kubernetes Deployments have probes on /health and /readyz and resource requests and limits", () => {
    const deployments = byKind("Deployment");
    for (const name of [...Object.keys(SERVICES), "metadata-worker"]) {
      expect(findObject("Deployment", name), name).toBeDefined();
    }
    for (const deployment of deployments) {
      const name = deployment.metadata.name;
      const labels = deployment.spec.template.metadata.labels;
      for (const [key, value] of Object.entries(deployment.spec.selector.matchLabels))
        expect(labels[key], name).toBe(value);
      for (const container of deployment.spec.template.spec.containers) {
        expect(container.resources?.requests?.cpu, name).toBeDefined();
        expect(container.resources?.requests?.memory, name).toBeDefined();
        expect(container.resources?.limits?.memory, name).toBeDefined();
        if (name === "metadata-worker") {
          expect(container.livenessProbe?.exec, name).toBeDefined();
          continue;
        }
        expect(container.livenessProbe?.httpGet?.path, name).toBe("/health");
        expect(container.readinessProbe?.httpGet?.path, name).toBe("/readyz");
        const portName = container.readinessProbe.httpGet.port;
        const port = container.ports.find((p: Yaml) => p.name === portName || p.containerPort === portName);
        expect(port?.containerPort, name).toBe(SERVICES[name as ServiceName].port);
      }
    }
  });

  it("behavior: a Deployment's memory limit is above the V8 heap bound its image starts node with", () => {
    /** MiB of a Kubernetes quantity (Mi or Gi). */
    const mebibytes = (quantity: string) => {
      const match = /^(\d+)(Mi|Gi)$/.exec(quantity);
      expect(match, quantity).not.toBeNull();
      return Number(match![1]) * (match![2] === "Gi" ? 1024 : 1);
    };
    let checked = 0;
    for (const name of Object.keys(SERVICES)) {
      const command = read(`deploy/docker/${name}.Dockerfile`).match(/^CMD (.*)$/m)?.[1] ?? "";
      const oldSpace = /--max-old-space-size=(\d+)/.exec(command);
      if (oldSpace === null) continue;
      const semiSpace = Number(/--max-semi-space-size=(\d+)/.exec(command)?.[1] ?? 16);
      // Old space + the young generation (3 semi-spaces) + 256 MiB for code, stacks and buffers.
      const bound = Number(oldSpace[1]) + 3 * semiSpace + 256;
      for (const container of findObject("Deployment", name).spec.template.spec.containers) {
        expect(mebibytes(container.resources.limits.memory), name).toBeGreaterThanOrEqual(bound);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(2); // the indexer and query-api set a heap bound
  });

  it("behavior: the indexer runs as a single replica replaced with Recreate, and query-api has an HPA", () => {
    const indexer = findObject("Deployment", "indexer");
    expect(indexer.spec.replicas).toBe(1);
    expect(indexer.spec.strategy.type).toBe("Recreate");
    expect(read("deploy/k8s/indexer.yaml")).toMatch(/advisory lock/);
    const hpas = byKind("HorizontalPodAutoscaler");
    expect(hpas.map((h) => h.spec.scaleTargetRef.name)).toEqual(["query-api"]);
    const hpa = hpas[0];
    expect(findObject(hpa.spec.scaleTargetRef.kind, hpa.spec.scaleTargetRef.name)).toBeDefined();
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(1);
    expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
  });

  it("behavior: Services select Deployments, the Ingress routes the gateway's prefixes to existing Services", () => {
    for (const service of byKind("Service")) {
      const target = byKind("Deployment").find((d) =>
        Object.entries(service.spec.selector).every(([k, v]) => d.spec.template.metadata.labels[k] === v),
      );
      expect(target, service.metadata.name).toBeDefined();
      for (const port of service.spec.ports) {
        const named = target.spec.template.spec.containers.flatMap((c: Yaml) => c.ports ?? []);
        expect(
          named.some((p: Yaml) => p.name === port.targetPort || p.containerPort === port.targetPort),
        ).toBe(true);
      }
    }
    const [ingress] = byKind("Ingress");
    const paths = ingress.spec.rules.flatMap((r: Yaml) => r.http.paths);
    const prefixes = paths.map((p: Yaml) => p.path);
    for (const prefix of [
      "/api/v1/prices/",
      "/api/v1/token-metadata",
      "/objects/",
      "/api/v1/",
      "/docs",
      "/health",
      "/readyz",
    ]) {
      expect(prefixes).toContain(prefix);
    }
    for (const path of paths) {
      const backend = findObject("Service", path.backend.service.name);
      expect(backend, path.path).toBeDefined();
      expect(backend.spec.ports.map((p: Yaml) => p.port)).toContain(path.backend.service.port.number);
    }
  });

  it("behavior: ConfigMaps and Secrets referenced by workloads exist", () => {
    const workloads = [...byKind("Deployment"), ...byKind("Job")];
    for (const workload of workloads) {
      for (const container of workload.spec.template.spec.containers) {
        for (const from of container.envFrom ?? []) {
          if (from.configMapRef) expect(findObject("ConfigMap", from.configMapRef.name)).toBeDefined();
          if (from.secretRef) expect(findObject("Secret", from.secretRef.name)).toBeDefined();
        }
        for (const variable of container.env ?? []) {
          const ref = variable.valueFrom?.secretKeyRef;
          if (ref) expect(Object.keys(findObject("Secret", ref.name).stringData)).toContain(ref.key);
        }
      }
    }
    const kustomization = parse(read("deploy/k8s/kustomization.yaml"));
    expect([...kustomization.resources].sort()).toEqual(
      k8sFiles.filter((f) => f !== "kustomization.yaml").sort(),
    );
  });

  it("behavior: every setting of every service's env schema is set in compose and Kubernetes and documented", () => {
    const docs = existsSync(join(ROOT, "docs/operations.md")) ? read("docs/operations.md") : "";
    const problems: string[] = [];
    for (const [service, where] of Object.entries(SERVICES) as [
      ServiceName,
      (typeof SERVICES)[ServiceName],
    ][]) {
      const names = envNamesOf(service);
      expect(names.length, `${service}: no env schema found`).toBeGreaterThan(3);
      for (const name of names) {
        for (const composeName of where.compose) {
          if (!(name in compose.services[composeName].environment))
            problems.push(`compose ${composeName}: ${name}`);
        }
        for (const deploymentName of where.k8s) {
          // The worker answers no HTTP: its port setting is unused.
          if (deploymentName === "metadata-worker" && name === "PORT") continue;
          if (!k8sEnvNames(deploymentName).has(name)) problems.push(`k8s ${deploymentName}: ${name}`);
        }
        if (!docs.includes(`\`${name}\``)) problems.push(`docs/operations.md: ${name}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

/** `<dir>/package.json` of every workspace package (pnpm-workspace.yaml globs: `dir` or `dir/*`). */
function workspaceManifests(): string[] {
  const globs: string[] = parse(read("pnpm-workspace.yaml")).packages;
  const dirs = globs.flatMap((glob) =>
    glob.endsWith("/*")
      ? readdirSync(join(ROOT, glob.slice(0, -2)), { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => `${glob.slice(0, -2)}/${e.name}`)
      : [glob],
  );
  return dirs
    .filter((dir) => existsSync(join(ROOT, dir, "package.json")))
    .map((dir) => `${dir}/package.json`);
}

/** Names of the variables a Deployment's containers receive (env, and keys of envFrom ConfigMaps/Secrets). */
function k8sEnvNames(deploymentName: string): Set<string> {
  const names = new Set<string>();
  const deployment = findObject("Deployment", deploymentName);
  for (const container of deployment.spec.template.spec.containers) {
    for (const variable of container.env ?? []) names.add(variable.name);
    for (const from of container.envFrom ?? []) {
      if (from.configMapRef)
        for (const key of Object.keys(findObject("ConfigMap", from.configMapRef.name).data)) names.add(key);
      if (from.secretRef)
        for (const key of Object.keys(findObject("Secret", from.secretRef.name).stringData)) names.add(key);
    }
  }
  return names;
}
