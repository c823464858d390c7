/**
 * A private OpenSSH server for the remote SFTP tests: the sshd and internal-sftp of the
 * Debian package, started as the current user (root in CI, anyone else locally) on a
 * free loopback port, with everything — host key, authorized client key, config, pid
 * file, the served folders — in a temp dir that `destroy` removes.
 *
 * `kill` takes the server away the hard way (SIGKILL to the listener and to every
 * session process it forked, which sshd puts in sessions of their own), and `start`
 * brings it back on the same port with the same host key, as a real server restart.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes.ts';

const run = promisify(execFile);
const SSHD = '/usr/sbin/sshd';

export interface SshdServer {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  /** The client's private key (OpenSSH format, no passphrase). */
  readonly clientKeyPath: string;
  /** The server's host-key fingerprint as `ssh-keygen -l` prints it: "SHA256:…". */
  readonly hostKeySha256: string;
  /** Absolute folder the SFTP user sees; test folders go under it. */
  readonly root: string;
  start(): Promise<void>;
  kill(): Promise<void>;
  /** Kills the server and removes its temp dir. */
  destroy(): Promise<void>;
}

export async function startSshd(): Promise<SshdServer> {
  const dir = await mkdtemp(join(tmpdir(), 'dg-sshd-'));
  const root = join(dir, 'files');
  await mkdir(root);
  const hostKey = join(dir, 'ssh_host_ed25519_key');
  const clientKeyPath = join(dir, 'client_ed25519');
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'depot-gateway test host', '-f', hostKey]);
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'depot-gateway test client', '-f', clientKeyPath]);
  const authorizedKeys = join(dir, 'authorized_keys');
  await writeFile(authorizedKeys, await readFile(`${clientKeyPath}.pub`), { mode: 0o600 });
  const { stdout } = await run('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${hostKey}.pub`]);
  const hostKeySha256 = stdout.split(/\s+/)[1] ?? '';
  if (!hostKeySha256.startsWith('SHA256:')) throw new Error(`unexpected ssh-keygen -l output: ${stdout}`);

  const port = await freePort();
  const username = userInfo().username;
  const configPath = join(dir, 'sshd_config');
  await writeFile(configPath, [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${hostKey}`,
    `PidFile ${join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${authorizedKeys}`,
    `AllowUsers ${username}`,
    'PubkeyAuthentication yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'PermitRootLogin prohibit-password',
    'UsePAM no',
    // The temp dir's modes are the test runner's business, not sshd's.
    'StrictModes no',
    'Subsystem sftp internal-sftp',
    'LogLevel ERROR',
    '',
  ].join('\n'));
  // As root, sshd's privilege separation needs its empty chroot directory.
  if (process.getuid?.() === 0) await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  await run(SSHD, ['-t', '-f', configPath]);

  let child: ChildProcess | undefined;
  const server: SshdServer = {
    host: '127.0.0.1',
    port,
    username,
    clientKeyPath,
    hostKeySha256,
    root,
    async start() {
      if (child && child.exitCode === null && child.signalCode === null) return;
      // -D: stay in the foreground, so `child` is the listener; -e: errors to stderr.
      child = spawn(SSHD, ['-D', '-e', '-f', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
      let errors = '';
      child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      const started = child;
      await waitForPort(port, () => (started.exitCode !== null ? `sshd exited (${started.exitCode}): ${errors}` : undefined));
    },
    async kill() {
      const listener = child;
      if (!listener?.pid || listener.exitCode !== null || listener.signalCode !== null) return;
      const pids = [listener.pid, ...(await descendantsOf(listener.pid))];
      const exited = new Promise<void>((resolve) => listener.once('exit', () => resolve()));
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await exited;
      await waitForPortClosed(port);
    },
    async destroy() {
      await server.kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

/** Every process below `pid`, read from /proc (sshd's session processes call setsid, so no process group holds them all). */
async function descendantsOf(pid: number): Promise<number[]> {
  const parents = new Map<number, number[]>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // the process ended while we looked
    }
  }
  const result: number[] = [];
  const walk = (parent: number) => {
    for (const child of parents.get(parent) ?? []) {
      result.push(child);
      walk(child);
    }
  };
  walk(pid);
  return result;
}

async function waitForPort(port: number, failed: () => string | undefined): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const problem = failed();
    if (problem) throw new Error(problem);
    if (await canConnect(port)) return;
    if (Date.now() > deadline) throw new Error(`sshd did not listen on ${port} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function waitForPortClosed(port: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  while ((await canConnect(port)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
