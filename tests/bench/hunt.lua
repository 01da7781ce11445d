-- hunt.lua — issue 30's workload, run by each interpreter's own process
-- (make bench): the same code on stock lua5.4 and on LuaJIT.
--
--   LUA_CPATH='build-luajit/?.so;;' luajit tests/bench/hunt.lua [--quick]
--   LUA_CPATH='build/?.so;;' lua5.4 tests/bench/hunt.lua
--
-- 10,000 agents (one in 14 a hunter) on a wrap square of one agent per 900
-- square units, 1 thread. Prey evade the nearest hunter within 100, hunters
-- pursue the nearest prey within 120 while stamina lasts, wander otherwise
-- (tests/bench/hunt/, the plain documented API). 3 warm-up steps, then 9
-- blocks of 20 steps (5 with --quick): the median block's ms per step, the
-- fastest and slowest, with the world's checksum after all steps. CPU time
-- (os.clock): the step runs on one thread. Prints figures, asserts nothing.
local here = (debug.getinfo(1, "S").source:gsub("^@", ""):match("^(.*)/[^/]*$")) or "."
package.path = here .. "/hunt/?.lua;" .. package.path
local steer = require "steer"

local quick = false
for _, a in ipairs(arg or {}) do
  if a == "--quick" then quick = true end
end
local n, every, steps, blocks = 10000, 14, quick and 5 or 20, 9
local side = math.sqrt(n * 900)
local w = steer.world { width = side, height = side, edges = "wrap", seed = 7, threads = 1, cell_size = 50 }
for i = 1, n do
  local hunter = i % every == 0
  w:spawn { pos = { w:random() * side, w:random() * side },
            tag = hunter and "hunter" or "prey", brain = hunter and "hunt_hunter" or "hunt_prey",
            max_speed = hunter and 160 or 150 }
end
dofile(here .. "/timing.lua")("hunt (plain API)", w, n, steps, blocks)
