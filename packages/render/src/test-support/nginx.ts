import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../../test-support/ports.js';

// nginx from Debian as the load balancer in front of several render instances: plain round robin,
// no stickiness, WebSocket upgrades passed on, the client's Host kept
// (docs/render.md#several-instances shows the same configuration).

export interface Balancer {
  base: string;
  port: number;
  close(): Promise<void>;
}

/** The configuration the docs show, for `upstreams` (host:port) on 127.0.0.1:`port`. */
export function balancerConfig(dir: string, port: number, upstreams: readonly string[]): string {
  return `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream render {
${upstreams.map((u) => `    server ${u};`).join('\n')}
  }
  map $http_upgrade $connection_upgrade { default upgrade; '' close; }
  server {
    listen 127.0.0.1:${String(port)};
    client_max_body_size 20m;
    location / {
      proxy_pass http://render;
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_read_timeout 1h;
      proxy_buffering off;
    }
  }
}
`;
}

function listening(port: number, child: ChildProcess, errors: string[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  return new Promise((resolve, reject) => {
    const attempt = (): void => {
      if (child.exitCode !== null) {
        reject(new Error(`nginx exited: ${errors.join('')}`));
        return;
      }
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve();
      });
      socket.on('error', () => {
        if (Date.now() > deadline) reject(new Error(`nginx did not listen: ${errors.join('')}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

/** Starts nginx in the foreground on loopback `port` (a free one by default) over `upstreams`. */
export async function startBalancer(upstreams: readonly string[], at?: number): Promise<Balancer> {
  const dir = await mkdtemp(join(tmpdir(), 'havn-nginx-'));
  const port = at ?? (await freePort());
  await writeFile(join(dir, 'nginx.conf'), balancerConfig(dir, port, upstreams));
  const child = spawn(
    '/usr/sbin/nginx',
    ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const errors: string[] = [];
  child.stderr.on('data', (chunk: Buffer) => errors.push(chunk.toString()));
  await listening(port, child, errors);
  return {
    base: `http://127.0.0.1:${String(port)}`,
    port,
    close: async () => {
      child.kill('SIGQUIT');
      await new Promise((resolve) => child.once('exit', resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
