// Boots the official MicroPython WebAssembly port under Node with the project's firmware in
// its filesystem. Shared by the tests (run.mjs), the simulator and the benchmarks.
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

// Copy a host folder's .py/.mpy/.json files into the VM filesystem under `dest`.
export function copyTree(mp, src, dest) {
  mp.FS.mkdirTree(dest);
  for (const entry of fs.readdirSync(src, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || entry.name === "__pycache__") continue;
    const from = path.join(src, entry.name);
    const to = dest + "/" + entry.name;
    if (entry.isDirectory()) copyTree(mp, from, to);
    else if (/\.(py|mpy|json)$/.test(entry.name)) mp.FS.writeFile(to, fs.readFileSync(from));
  }
}

// options: firmware (folder copied to /lib, default firmware/), libs (more folders copied
// to /lib, e.g. stand-in `machine` modules), stdout/stderr/stdin callbacks, heapsize.
export async function bootVM(options = {}) {
  const out = options.stdout || ((s) => process.stdout.write(s));
  const err = options.stderr || ((s) => process.stderr.write(s));
  const mp = await loadMicroPython({
    heapsize: options.heapsize || 256 * 1024,
    stdout: out,
    stderr: err,
    stdin: options.stdin,
    linebuffer: false,
  });
  copyTree(mp, options.firmware || path.join(ROOT, "firmware"), "/lib");
  for (const lib of options.libs || []) copyTree(mp, path.resolve(lib), "/lib");
  return mp;
}
