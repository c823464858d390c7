/**
 * A command whose reader goes away (`depot-gateway mail-set-aside --json | head -c 10`)
 * stops there, as Unix tools do: Node ignores SIGPIPE, so a write to the closed pipe
 * fails with EPIPE, and an unhandled stream error would end the command with a stack
 * trace. The output nobody reads is dropped and the command exits at once with status 0
 * (what was read is what the reader asked for); any other stream error stays fatal.
 */
export function endQuietlyOnClosedPipe(streams: readonly NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(0);
      throw error;
    });
  }
}
