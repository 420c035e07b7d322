// The device's flash, kept in the browser's localStorage between visits: {name: base64}.
// The page mirrors it only between loop passes (after a tick, at a power cycle), never in the
// middle of one, so what is saved is what a pass committed: the firmware writes a settings
// file whole as name.tmp and renames it over the old one within its pass, so the mirror
// holds the old file or the new one, never a half-written one (issue 34, item 5).
export const FLASH_KEY = "carddraw.flash";

function b64(bytes) {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function unb64(text) {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

function saved() {
  try {
    return JSON.parse(localStorage.getItem(FLASH_KEY) || "{}");
  } catch {
    return {};
  }
}

// The files a boot puts on the simulated flash: {name: Uint8Array}.
export function loadFlash() {
  return Object.fromEntries(Object.entries(saved()).map(([k, v]) => [k, unb64(v)]));
}

// The files the device changed since the last save, written to localStorage in one
// setItem (all or nothing). -> null when saved (or nothing changed), else the error.
export function saveFlash(dev) {
  const { changed, removed } = dev.flashChanges();
  if (!Object.keys(changed).length && !removed.length) return null;
  const files = saved();
  for (const [name, bytes] of Object.entries(changed)) files[name] = b64(bytes);
  for (const name of removed) delete files[name];
  try {
    localStorage.setItem(FLASH_KEY, JSON.stringify(files));
    return null;
  } catch (e) {
    dev.flashSeen.clear();   // not saved: every file goes again with the next save
    return e;
  }
}

export function eraseFlash() {
  localStorage.removeItem(FLASH_KEY);
}
