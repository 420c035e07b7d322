// Export log: the referee takes the action log home from the phone, as `make logs` does from a
// Pico over USB (tools/bench.py logs), through the same bench protocol lines: `unlock CODE`
// (the referee code, checked by the firmware), `log` (the records streamed as they are on
// flash, hashes and all, a few a loop pass, while the device plays on), then the file is
// handed over (a download, or the phone's share sheet), and once the referee says it is
// saved, `log ack SEQ HASH` (the device may drop those records when its log is full), and
// `lock` when the dialog closes. The file is the one `make event` reads: a header line
// {"export": "carddraw-log", "device", "records", "damaged", "saved", "verified", "head"},
// then each record's line byte for byte; its hash chain checked first (tools/sim/logsave.py).
import { CodePad, refusal } from "./codepad.js";

const $ = (sel) => document.querySelector(sel);

// A local time as Python's isoformat(timespec="seconds") writes it, and as a file-name stamp.
function localTime(d) {
  const p = (n) => String(n).padStart(2, "0");
  const day = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
  const time = `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
  return { iso: `${day}T${time}`, stamp: `${day.replaceAll("-", "")}-${time.replaceAll(":", "")}` };
}

// The device id as a file-name part: letters and digits only (tools/benchcmd/logs.py's).
function safeName(text) {
  return String(text).replace(/[^A-Za-z0-9]/g, "").slice(0, 32) || "unknown";
}

// app: {running(), runLine(text) -> replies, send(text), listen(fn) -> stop, checkLog(lines)}
export function setupExport(app) {
  const dialog = $("#export-dialog");
  const pad = new CodePad(dialog, $("#export-code"), read);
  const said = (text) => { $("#export-said").textContent = text; };
  let unlocked = false;
  let stopListening = null;
  let url = null;
  let ack = null;                       // {seq, head} of the last record, once the file is made
  let file = null;

  function reset() {
    if (stopListening) stopListening();
    stopListening = null;
    if (url) URL.revokeObjectURL(url);
    url = null;
    ack = null;
    file = null;
    pad.clear();
    pad.hide(false);
    said("");
    $("#export-save").hidden = true;
    $("#export-ok").hidden = false;
    $("#export-ack").disabled = true;
    dialog.dataset.step = "code";
  }

  function read() {
    if (!app.running()) {
      pad.say("The device is off: Power cycle it, then try again.");
      return;
    }
    const why = refusal(app.runLine(`unlock ${pad.take()}`));
    if (why !== null) {
      pad.say(why);
      return;
    }
    unlocked = true;
    pad.hide(true);
    pad.say("");
    $("#export-ok").hidden = true;
    dialog.dataset.step = "reading";
    said("Reading the log\u2026");
    const lines = [];
    stopListening = app.listen((r) => {
      if (typeof r.log === "string") {
        lines.push(r.log);
        if (lines.length % 20 === 0) said(`Reading the log: ${lines.length} records\u2026`);
      } else if (r.ok === "log") {
        stopListening();
        stopListening = null;
        made(lines, r);
      } else if (r.error !== undefined) {
        stopListening();
        stopListening = null;
        said(`The device refused: ${r.error}`);
      }
    });
    app.send("log");
  }

  function made(lines, reply) {
    const check = app.checkLog(lines);
    const when = localTime(new Date());
    const header = { export: "carddraw-log", device: reply.device || "unknown",
      records: lines.length, damaged: reply.damaged || 0, saved: when.iso,
      verified: check.ok, head: check.head };
    if (!check.ok) header.problem = check.message;
    const text = [JSON.stringify(header), ...lines].join("\n") + "\n";
    const name = `carddraw-${safeName(header.device)}-${when.stamp}.jsonl`;
    file = new File([text], name, { type: "text/plain" });
    url = URL.createObjectURL(file);
    const link = $("#export-download");
    link.href = url;
    link.download = name;
    ack = check.seq === null ? null : { seq: check.seq, head: check.head };
    const n = lines.length;
    said(`${n} record${n === 1 ? "" : "s"} from device ${header.device}`
      + `${header.damaged ? ` (${header.damaged} damaged lines skipped)` : ""}: `
      + `${check.ok ? check.message : `NOT VERIFIED: ${check.message}`}. Save the file, `
      + "then acknowledge it.");
    $("#export-share").hidden = !(navigator.canShare && navigator.canShare({ files: [file] }));
    $("#export-save").hidden = false;
    dialog.dataset.step = "save";
  }

  function handedOver() {
    if (ack) $("#export-ack").disabled = false;
    else said("The log is empty: nothing to acknowledge.");
  }

  function acknowledge() {
    const r = app.runLine(`log ack ${ack.seq} ${ack.head}`)
      .find((x) => x.ok === "ack" || x.error !== undefined);
    $("#export-ack").disabled = true;
    dialog.dataset.step = "done";
    said(r && r.ok === "ack"
      ? `Acknowledged: the device may drop the records up to ${ack.seq} once its log is full.`
      : `Not acknowledged: ${r ? r.error : "no answer"}`);
  }

  $("#export").addEventListener("click", () => {
    reset();
    dialog.showModal();
  });
  $("#export-ok").addEventListener("click", read);
  $("#export-cancel").addEventListener("click", () => dialog.close());
  $("#export-download").addEventListener("click", () => setTimeout(handedOver, 0));
  $("#export-share").addEventListener("click", () => {
    navigator.share({ files: [file], title: file.name })
      .then(handedOver, () => said("Not shared: the file is still here to download or share."));
  });
  $("#export-ack").addEventListener("click", acknowledge);
  dialog.addEventListener("close", () => {
    if (unlocked && app.running()) app.runLine("lock");   // bench mode ends with the export
    unlocked = false;
    reset();
  });
  return dialog;
}
