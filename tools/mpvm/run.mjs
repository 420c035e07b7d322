// Run a Python script inside the MicroPython VM with the firmware on its path.
//   node tools/mpvm/run.mjs [--firmware DIR] [--lib DIR]... SCRIPT.py
// The script's prints go to stdout. If it leaves a global RESULT (any JSON-able value), the
// harness reads it back with mp.globals.get and prints it as the last line, after "RESULT ".
// A Python exception exits with status 1 and the traceback on stderr.
// A line "#--- step" splits the script into steps run as separate top-level calls: the VM's
// collector only frees what the running step's stack no longer reaches once a step returns,
// so heap readings (gc.mem_alloc) belong in a step of their own after a gc.collect().
import fs from "node:fs";
import { bootVM } from "./vm.mjs";

const args = process.argv.slice(2);
const libs = [];
let firmware;
let script;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--lib") libs.push(args[++i]);
  else if (args[i] === "--firmware") firmware = args[++i];
  else if (!script) script = args[i];
  else {
    process.stderr.write(`unexpected argument ${args[i]}\n`);
    process.exit(2);
  }
}
if (!script) {
  process.stderr.write("usage: node tools/mpvm/run.mjs [--firmware DIR] [--lib DIR]... SCRIPT.py\n");
  process.exit(2);
}
const mp = await bootVM({ firmware, libs });
try {
  for (const step of fs.readFileSync(script, "utf8").split(/^#--- step.*$/m)) {
    await mp.runPythonAsync(step);
  }
  await mp.runPythonAsync("import json\n_RESULT_JSON = json.dumps(globals().get('RESULT'))");
  process.stdout.write("\nRESULT " + mp.globals.get("_RESULT_JSON") + "\n");
} catch (e) {
  process.stderr.write(String(e.message || e) + "\n");
  process.exit(1);
}
