import { open, readFile, rename, unlink, type FileHandle } from 'node:fs/promises';

const LOCK_ATTEMPTS = 100;
const LOCK_WAIT_MS = 20;

/** Writes the file by rename of a fsynced temporary: readers see the old or the new text, never half. */
export async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  const handle = await open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, path);
}

/** Whether the lock's holder (the pid it holds) is gone: a process killed while holding it. */
async function abandoned(lockPath: string): Promise<boolean> {
  const pid = Number(await readFile(lockPath, 'utf8').catch(() => ''));
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Runs `work` holding `<path>.lock` (an exclusive create holding the holder's pid), waiting up to
 * 2 s for it; a lock whose holder died (SIGKILL mid-write) is taken over.
 */
export async function withLock<T>(path: string, work: () => Promise<T>): Promise<T> {
  const lockPath = `${path}.lock`;
  let lock: FileHandle;
  for (let attempt = 1; ; attempt++) {
    try {
      lock = await open(lockPath, 'wx', 0o600);
      await lock.writeFile(String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (await abandoned(lockPath)) {
        await unlink(lockPath).catch(() => {});
        continue;
      }
      if (attempt === LOCK_ATTEMPTS) {
        throw new Error(`it stayed locked for 2 s; if no command is running, remove ${lockPath}`, {
          cause: error,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, LOCK_WAIT_MS));
    }
  }
  try {
    return await work();
  } finally {
    await lock.close();
    await unlink(lockPath).catch(() => {});
  }
}
