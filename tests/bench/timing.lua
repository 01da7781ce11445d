-- timing.lua — the part the Lua bench drivers (brains.lua, hunt.lua, bt.lua)
-- share: 3 warm-up steps, then `blocks` blocks of `steps` steps timed in CPU
-- time (os.clock), and one row in bench.c's columns with the median block's
-- ms per step, the fastest and slowest, the Lua, the backend and the
-- world's checksum. Prints figures, asserts nothing.
local steer = require "steer"

return function(case, w, n, steps, blocks)
  for _ = 1, 3 do w:step() end
  local ms = {}
  for b = 1, blocks do
    local t0 = os.clock()
    for _ = 1, steps do w:step() end
    ms[b] = (os.clock() - t0) / steps * 1e3
  end
  table.sort(ms)
  local med = ms[(blocks + 1) / 2]
  local jit = rawget(_G, "jit")
  print(("%-22s %9d %7d %10.3f %12.0f %12.1f  median of %d blocks (%.2f..%.2f); %s, backend %s; checksum %s"):format(
    case, n, 1, med, med * 1e6 / n, 1000 / med, blocks, ms[1], ms[blocks], jit and jit.version or _VERSION,
    tostring(steer.backend), w:checksum()))
end
