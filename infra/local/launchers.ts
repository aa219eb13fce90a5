// Local stack: the processes that launched it, watched so the stack never outlives them.
//
// `npm start` runs npm -> the tsx CLI -> this process; `npx tsx infra/local/start.ts` runs npx -> `sh -c tsx ...`
// -> the tsx CLI -> this process. A signal or SIGKILL to the outer launcher ends it alone: npx does not pass SIGTERM
// to its `sh -c`, and nobody passes SIGKILL on. The launchers are the chain of ancestors that are Node.js processes
// (same executable as ours: npm, npx, tsx, a test runner) or the `sh -c` wrappers npm puts between them; the walk
// stops at the first other process (the user's shell, a terminal, a service manager), which is not a launcher.
// On Linux each launcher is identified by pid and start time (/proc), so a reused pid is not mistaken for it;
// elsewhere only the parent is watched (a change of process.ppid means it is gone).
import { readFileSync, readlinkSync } from 'node:fs';

export interface Launcher {
  readonly pid: number;
  /** Start time in clock ticks since boot (/proc/<pid>/stat field 22): with the pid, a process's identity. */
  readonly startTime: string;
  readonly command: string;
}

interface ProcessInfo {
  readonly parentPid: number;
  readonly startTime: string;
  readonly executable: string | undefined;
  readonly command: string;
}

const processInfo = (pid: number): ProcessInfo | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses): state, ppid, ... starttime is 22nd.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    let executable: string | undefined;
    try {
      executable = readlinkSync(`/proc/${pid}/exe`);
    } catch {
      executable = undefined;
    }
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    return { parentPid: Number(fields[1]), startTime: fields[19] ?? '', executable, command };
  } catch {
    return undefined;
  }
};

/** A `sh -c '...'` as npm and npx spawn scripts and binaries with. */
const isScriptShell = (info: ProcessInfo): boolean => /^(\/(usr\/)?bin\/)?(sh|dash|bash) -c /.test(info.command);

/** The launchers of this process, nearest first (empty where /proc is not available). */
export const launcherChain = (pid = process.pid, nodeExecutable = process.execPath): Launcher[] => {
  const chain: Launcher[] = [];
  let current = processInfo(pid);
  while (current && current.parentPid > 1) {
    const parentPid = current.parentPid;
    const parent = processInfo(parentPid);
    if (!parent) break;
    const isNode = parent.executable !== undefined && parent.executable === nodeExecutable;
    if (!isNode && !isScriptShell(parent)) break;
    chain.push({ pid: parentPid, startTime: parent.startTime, command: parent.command });
    current = parent;
  }
  return chain;
};

const isSameProcess = (launcher: Launcher): boolean => processInfo(launcher.pid)?.startTime === launcher.startTime;

/**
 * Calls `onGone` (once) with a description of the first launcher found gone, checking every `intervalMs`; the timer
 * does not keep the process alive. Returns a function that stops watching.
 */
export const watchLaunchers = (onGone: (launcher: string) => void, intervalMs = 250): (() => void) => {
  const chain = launcherChain();
  const parentPid = process.ppid;
  let reported = false;
  const timer = setInterval(() => {
    if (reported) return;
    const gone = process.ppid !== parentPid ? `${parentPid} (parent)` : chain.find((launcher) => !isSameProcess(launcher));
    if (gone === undefined) return;
    reported = true;
    onGone(typeof gone === 'string' ? gone : `${gone.pid} (${gone.command.slice(0, 60)})`);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
};
