import type { LmdbWriter } from './lmdb-writer.js';

const writers = new Set<LmdbWriter>();
let stopping = false;

/**
 * Ctrl-Z (SIGTSTP) stops a process at once by default, maybe within a commit, holding LMDB's one
 * write lock: every process on the directory then waited for as long as it stayed stopped. With
 * this listener the process holds its new writes, lets those begun settle, and only then stops
 * itself (SIGSTOP, which returns on SIGCONT); its held writes then go on.
 */
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  try {
    const resumes = await Promise.all([...writers].map((writer) => writer.pause()));
    process.kill(process.pid, 'SIGSTOP');
    for (const resume of resumes) resume();
  } finally {
    stopping = false;
  }
}

const onStop = (): void => void stop();

/** Makes job control stop this process only between `writer`'s writes; returns the undoing. */
export function stopsWithoutTheLock(writer: LmdbWriter): () => void {
  if (writers.size === 0) process.on('SIGTSTP', onStop);
  writers.add(writer);
  return () => {
    writers.delete(writer);
    if (writers.size === 0) process.off('SIGTSTP', onStop);
  };
}
