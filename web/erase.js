// Erase flash (in the device view): only with the referee code, as the device keeps all it
// erases (the settings, the code, the action in progress, the log). The firmware checks the
// code (`unlock CODE`: the lock screen's own check, its wrong tries counted on the flash and
// its waits); only {"ok": "unlock"} erases, anything else is said and nothing changes.
import { CodePad, refusal } from "./codepad.js";

// app: {running(), runLine(text) -> replies, saveFlash(), stopped(error), erase(), say(text)}
export function setupErase(app) {
  const dialog = document.querySelector("#erase-dialog");
  const pad = new CodePad(dialog, dialog.querySelector(".code-slot"), check);
  let erasing = false;

  function check() {
    if (!app.running()) {
      pad.say("The device is off: nothing erased. Power cycle it, then try again.");
      return;
    }
    const code = pad.take();
    let replies;
    try {
      replies = app.runLine(`unlock ${code}`);
      app.saveFlash();                    // a wrong try counted is on the flash at once
    } catch (e) {
      dialog.close();
      app.stopped(e);
      return;
    }
    const why = refusal(replies);
    if (why !== null) {
      pad.say(why === "The device did not answer." ? `${why} Nothing erased.` : why);
      return;
    }
    erasing = true;
    dialog.close();
    app.erase();
  }

  document.querySelector("#erase").addEventListener("click", () => {
    erasing = false;
    pad.clear();
    dialog.showModal();
  });
  document.querySelector("#erase-ok").addEventListener("click", check);
  document.querySelector("#erase-cancel").addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => {
    pad.clear();
    if (!erasing) app.say("Nothing erased.");
  });
  return dialog;
}
