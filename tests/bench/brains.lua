-- brains.lua — the benchmark's "lua brains (lean)" row (tests/bench/bench.c)
-- for any Lua steer.so is built for, run by that Lua's own interpreter:
--
--   LUA_CPATH='build-luajit/?.so;;' luajit tests/bench/brains.lua [--quick] [--steer]
--   LUA_CPATH='build/?.so;;' lua5.4 tests/bench/brains.lua
--
-- --steer: the same brains written with a:nearest and a:steer kept in
-- locals (lean_*_steer.lua): the "lua brains (steer)" row, the same checksum.
-- --area A: one agent per A square units and one hunter in ten, as the
-- four-density lean rows of steer_bench (density.c: 14000, 3600, 900, 400).
--
-- 10,000 agents (one in 14 a hunter) with the lean hunter/prey brains of
-- tests/bench/brains/ at the demo's density, 1 thread: 3 warm-up steps, then
-- 9 blocks of 20 steps (5 with --quick); the median block's ms per step, the
-- fastest and slowest, in bench.c's columns. CPU time (os.clock): the step
-- runs on one thread. Prints figures, asserts nothing.
local here = (debug.getinfo(1, "S").source:gsub("^@", ""):match("^(.*)/[^/]*$")) or "."
package.path = here .. "/brains/?.lua;" .. package.path
local steer = require "steer"

local quick, fast, area, every = false, false, nil, 14
local args = arg or {}
for i, a in ipairs(args) do
  if a == "--quick" then quick = true elseif a == "--steer" then fast = true
  elseif a == "--area" then area = tonumber(args[i + 1]); every = 10 end
end
local suffix = fast and "_steer" or ""
local n, steps, blocks = 10000, quick and 5 or 20, 9
local side = math.sqrt(n * (area or (960 * 640) / 43))
local w = steer.world { width = side, height = side, edges = "wrap", seed = 7, threads = 1, cell_size = 50 }
for i = 1, n do
  local hunter = i % every == 0
  w:spawn { pos = { w:random() * side, w:random() * side },
            tag = hunter and "hunter" or "prey", brain = (hunter and "lean_hunter" or "lean_prey") .. suffix,
            max_speed = hunter and 160 or 150 }
end
local case = fast and "lua brains (steer)" or "lua brains (lean)"
if area then case = ("lean at %d u2%s"):format(area, fast and " (st)" or "") end
dofile(here .. "/timing.lua")(case, w, n, steps, blocks)
