# MicroPython's manifest for one UF2 with this firmware frozen in: `make uf2 MICROPY=...`
# builds ports/rp2 with BOARD=RPI_PICO FROZEN_MANIFEST=<this file>. Relative paths are this
# folder's (MicroPython reads a manifest from its own directory). Frozen code runs from flash:
# its bytecode and strings are not copied into the heap as a .mpy file's are.
# opt=3 is what `make deploy` builds too (tools/build_mpy.py: no line-number tables; the
# firmware has no assert or __debug__ block for it to drop).
include("$(PORT_DIR)/boards/manifest.py")   # the stock build's own frozen modules (asyncio...)
package("carddraw", opt=3)                   # every .py under carddraw/
module("main.py", opt=3)                     # a frozen main.py runs before one on the filesystem
