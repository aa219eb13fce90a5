// Local stack: runs a long-lived external program (DynamoDB Local's JVM) so that it can never outlive this
// Node process, even when Node is killed with SIGKILL and runs no exit handler.
//
// The program runs under `sh`, whose stdin is a pipe from Node. A watcher subshell blocks on `read` from that
// pipe; the pipe reaches end-of-file when Node closes it (a normal stop) or when the kernel closes it because
// Node died, however it died. Then the watcher sends SIGTERM, and SIGKILL if the program is still alive five
// seconds later. The group is detached so a terminal's Ctrl-C reaches only Node, which stops things in order.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

const watchdogScript = [
  'exec 3<&0', // keep the pipe: background jobs get /dev/null as stdin
  '"$@" </dev/null &',
  'child=$!',
  '( read _ignored <&3',
  '  kill -TERM "$child" 2>/dev/null',
  '  i=0; while kill -0 "$child" 2>/dev/null && [ "$i" -lt 20 ]; do sleep 0.25; i=$((i+1)); done',
  '  kill -KILL "$child" 2>/dev/null ) &',
  'exec 3<&-',
  'wait "$child"',
].join('\n');

export interface WatchedProcess {
  readonly child: ChildProcess;
  /** Resolves with the exit code (or signal) once the program and its shell have exited. */
  readonly exited: Promise<number | NodeJS.Signals | null>;
  /** Closes the pipe (the program gets SIGTERM) and waits; SIGKILLs the group if it lingers past `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export const spawnWatched = (
  command: string,
  args: readonly string[],
  options: Pick<SpawnOptions, 'cwd' | 'env'> = {},
): WatchedProcess => {
  const child = spawn('sh', ['-c', watchdogScript, 'local-stack-watchdog', command, ...args], {
    ...options,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal));
    child.once('error', () => resolve(null));
  });
  // Never let a closed pipe crash Node: it only means the program is already gone.
  child.stdin?.on('error', () => undefined);

  const stop = async (graceMs = 8000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin?.end();
    const timer = setTimeout(() => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, graceMs);
    await exited;
    clearTimeout(timer);
  };

  return { child, exited, stop };
};
