# settings.json: read capped, checked (settings.check, the controller's own check), written
# whole in one step (flashfs.write_json: name.tmp written, then renamed over the old file), so
# that a power cut or a kill leaves the old file or the new on every filesystem. Pure I/O.
#
# The settings as flash holds them are the file's, then the changes the journal's entries
# made after it (each entry says which settings its pass changed): the file holds "j", the
# number of the newest entry whose changes it holds. Idle passes bring the file up to the
# journal (checkpoint, Store.housekeep), after which the journal's folders holding those
# changes may go.
from carddraw import config, settings as known
from carddraw.flashfs import MISSING, make, read_json, write_json

SETTINGS_MAX = 4096  # bytes read at most from the settings file


class SettingsFile:
    def __init__(self, fs, root):
        self.fs = fs
        self.path = root + config.SETTINGS_FILE
        self.settings = None  # as flash holds them (the file, then the journal's changes)
        self.j = 0            # the newest journal entry whose changes the file holds
        self.why = None       # why the file was unreadable (MISSING: none yet) ...
        self.bad = []         # ... or its bad fields: until load_settings reports them once
        self.spare = False    # settings.json.tmp made empty in an idle step, for checkpoint

    def read(self):
        """settings.json read and checked -> (settings, the entry number it is as of, why it
        is unreadable or None, its bad fields)."""
        data, why = read_json(self.fs, self.path, SETTINGS_MAX)
        if why is None and not isinstance(data, dict):
            why = "not an object"
        if why is not None:
            return config.defaults(), 0, why, []
        s, bad = known.check(data)  # the controller uses the same check
        return s, data.get("j") if type(data.get("j")) is int else 0, None, bad

    def load(self):
        """The file read into self (the boot, once): the journal's changes come after
        (change())."""
        self.settings, self.j, self.why, self.bad = self.read()

    def change(self, number, changes):
        """A journal entry's settings changes, read at boot in entry order: over the file's
        if newer than it."""
        if number > self.j and isinstance(changes, dict):
            self.settings.update(changes)

    def loaded(self):
        """Once the journal's changes are in: the whole dict checked again (a change may be
        damaged as a file may)."""
        self.settings = known.check(self.settings)[0]

    def damage(self):
        """-> (why, bad fields) to report, once: the next call says none."""
        why, bad = self.why, self.bad
        self.why, self.bad = None, []
        return why, bad

    def changes(self, settings):
        """The settings of a pass (a whole dict, or None) that differ from flash's, or None."""
        if settings is None:
            return None
        changed = {}
        for name in settings:
            if self.settings.get(name) != settings[name]:
                changed[name] = settings[name]
        return changed

    def checkpoint(self, entries):
        """A step of bringing the file up to the journal's newest settings (entries: the
        journal's), if it is behind: settings.json.tmp made empty, then, in the next step,
        the file written whole (flashfs.write_json: the .tmp written and renamed over it).
        -> whether it was behind (OSError if the flash refused). A cut after the first step
        leaves an empty .tmp beside the old file: the boot removes it (Store._open)."""
        newest = 0
        for e in entries:
            if e.settings and e.number > self.j:
                newest = e.number
        if not newest:
            return False
        if not self.spare:
            make(self.fs, self.path + ".tmp")  # its own step: see flashfs.make
            self.spare = True
        elif not self.write(newest):
            raise OSError(5)
        return True

    def write(self, j=None):
        """The settings written whole as of journal entry j (self.j if None), in one step:
        the old file or the new at any power cut. -> True once on flash."""
        j = self.j if j is None else j
        s = dict(self.settings)
        s["j"] = j
        made, self.spare = self.spare, False
        if not write_json(self.fs, self.path, s, made):
            return False
        self.j = j
        return True


def fresh(why):
    """Whether settings.json's state means a device that never had one (not damage)."""
    return why == MISSING
