/**
 * A private Dovecot IMAP server for the mailbox tests: its own configuration, sockets,
 * log and maildir in a temp folder, one user, plaintext login on a free loopback port
 * without TLS. It runs as the current user; under root (CI) the login and auth
 * processes drop to Dovecot's own system users as usual, and the mail user is the
 * unprivileged `nobody`, so no mail is touched as root. The test may stop
 * and start it again (the maildir survives) to play an IMAP server going away.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './processes.ts';

export const DOVECOT_BINARY = '/usr/sbin/dovecot';

export interface DovecotServer {
  readonly host: '127.0.0.1';
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** Starts the server (again) and resolves once it greets on its port. */
  start(): Promise<void>;
  /** Stops the server and all its processes at once (clients lose their connections) and waits for the port to close. */
  kill(): Promise<void>;
  /** Stops the server and removes its folder. */
  destroy(): Promise<void>;
  /** The server's log, for a failing test's message. */
  log(): Promise<string>;
}

const NOBODY = { uid: 65534, gid: 65534 };

export async function startDovecot(): Promise<DovecotServer> {
  const dir = await mkdtemp(join(tmpdir(), 'dg-dovecot-'));
  // Dovecot's login processes (dovenull) must reach base_dir below it.
  await chmod(dir, 0o755);
  const port = await freePort();
  const user = 'gateway';
  const password = 'gateway-test-password';
  const root = process.getuid?.() === 0;
  const me = userInfo();
  const mailOwner = root ? NOBODY : { uid: me.uid, gid: me.gid };
  const mailDir = join(dir, 'mail');
  await mkdir(mailDir, { recursive: true });
  await mkdir(join(dir, 'state'), { recursive: true });
  if (root) await chown(mailDir, mailOwner.uid, mailOwner.gid);

  const passwd = join(dir, 'passwd');
  await writeFile(passwd, `${user}:{PLAIN}${password}:${mailOwner.uid}:${mailOwner.gid}::${mailDir}/${user}\n`);
  await chmod(passwd, 0o644);
  const config = join(dir, 'dovecot.conf');
  const serviceUsers = root
    ? ''
    : `default_internal_user = ${me.username}\ndefault_login_user = ${me.username}\ndefault_internal_group = ${me.username}\n`;
  await writeFile(
    config,
    `# private test server of depot-gateway
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
info_log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = ${Math.min(mailOwner.uid, 1)}
mail_location = maildir:~/Maildir
${serviceUsers}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
service imap-login {
  chroot =
}
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${passwd}
}
userdb {
  driver = passwd-file
  args = username_format=%u ${passwd}
}
namespace inbox {
  inbox = yes
  separator = /
}
`,
  );

  let child: ChildProcess | undefined;
  const server: DovecotServer = {
    host: '127.0.0.1',
    port,
    user,
    password,
    async start() {
      // Its own process group, so kill() takes the master and every child with it.
      const started = spawn(DOVECOT_BINARY, ['-F', '-c', config], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
      let stderr = '';
      started.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child = started;
      const deadline = Date.now() + 10_000;
      while (!(await greets(port))) {
        if (started.exitCode !== null || Date.now() > deadline) {
          throw new Error(`dovecot did not start (exit ${started.exitCode}): ${stderr}\n${await server.log()}`);
        }
        await sleep(50);
      }
    },
    async kill() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      // The whole group at once, so every client connection drops mid-command. SIGTERM
      // rather than SIGKILL: a killed imap process leaves its maildir lock behind, and
      // the restarted server would wait minutes for the lock to turn stale.
      const group = running.pid === undefined ? undefined : -running.pid;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      if (group === undefined) running.kill('SIGTERM');
      else process.kill(group, 'SIGTERM');
      const timeout = sleep(5000).then(() => 'timeout' as const);
      if ((await Promise.race([exited, timeout])) === 'timeout') {
        if (group === undefined) running.kill('SIGKILL');
        else process.kill(group, 'SIGKILL');
        await exited;
      }
      const deadline = Date.now() + 10_000;
      while ((await greets(port)) && Date.now() < deadline) await sleep(50);
    },
    async destroy() {
      await server.kill();
      await rm(dir, { recursive: true, force: true });
    },
    log: () => readFile(join(dir, 'dovecot.log'), 'utf8').catch(() => ''),
  };
  await server.start();
  return server;
}

/** Whether something on the port sends an IMAP greeting. */
function greets(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (value: boolean) => {
      socket.destroy();
      resolve(value);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('data', (chunk: Buffer) => done(chunk.toString().startsWith('* OK')));
    socket.once('error', () => done(false));
  });
}
