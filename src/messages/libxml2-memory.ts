/**
 * The size of this thread's libxml2 WebAssembly memory, for the validation thread to
 * report with each verdict (validation-thread.ts replaces a thread whose memory grew
 * too far: WebAssembly memory grows and never shrinks, so a hostile document's peak
 * would stay resident for good).
 *
 * libxml2-wasm keeps its Emscripten module to itself, and the memory is an export of
 * its WebAssembly instance (not an import that could be handed in), so the memory is
 * caught as the instance is made: while `load` runs (the import that loads
 * libxml2-wasm), `WebAssembly.instantiate` is wrapped, and the instance exporting
 * libxml2's own parser gives its memory. The wrapper is removed as soon as `load`
 * ends. Reading the size afterwards is one property read. Where libxml2 was loaded in
 * this thread before, nothing is caught and the size is unknown.
 */
export async function loadWatchingLibxml2Memory<T>(load: () => Promise<T>): Promise<{ loaded: T; memoryBytes: () => number | undefined }> {
  let memory: WebAssembly.Memory | undefined;
  const instantiate = WebAssembly.instantiate;
  const catchMemory = (instance: WebAssembly.Instance) => {
    const { exports } = instance;
    if ('xmlCtxtReadMemory' in exports && exports.memory instanceof WebAssembly.Memory) memory = exports.memory;
  };
  const watching = async (...args: Parameters<typeof instantiate>) => {
    const made = (await (instantiate as (...all: unknown[]) => Promise<unknown>)(...args)) as WebAssembly.Instance | WebAssembly.WebAssemblyInstantiatedSource;
    catchMemory('instance' in made ? made.instance : made);
    return made;
  };
  WebAssembly.instantiate = watching as typeof instantiate;
  try {
    const loaded = await load();
    return { loaded, memoryBytes: () => memory?.buffer.byteLength };
  } finally {
    WebAssembly.instantiate = instantiate;
  }
}
