-- bt.lua — the benchmark's "bt brains" rows (make bench): 10,000 agents on
-- a behaviour tree of 11 nodes (tests/bench/brains/bt_grazer.lua, steer.bt),
-- or with --plain the same agents written as if/else (bt_grazer_plain.lua,
-- the same checksum): the difference is what the tree costs.
--
--   LUA_CPATH='build/?.so;;' lua5.4 tests/bench/bt.lua [--quick] [--plain] [--think N]
--
-- --think N: every agent's brain runs every N ticks (a.think_every,
-- staggered by id), the tree ticked with the time since its last update.
--   LUA_CPATH='build-luajit/?.so;;' luajit tests/bench/bt.lua
--
-- 1 thread, wrap world at the demo's density, one agent in 14 a "hunter"
-- the others evade; energy drawn per agent from the world's stream. 3
-- warm-up steps, then 9 blocks of 20 steps (5 with --quick); the median
-- block's ms per step, the fastest and slowest, in bench.c's columns. CPU
-- time (os.clock). Prints figures, asserts nothing.
local here = (debug.getinfo(1, "S").source:gsub("^@", ""):match("^(.*)/[^/]*$")) or "."
package.path = here .. "/brains/?.lua;" .. here .. "/../../scripts/?.lua;" .. package.path
local steer = require "steer"

local quick, plain, think = false, false, 1
for k, a in ipairs(arg or {}) do
  if a == "--quick" then quick = true elseif a == "--plain" then plain = true
  elseif a == "--think" then think = assert(tonumber(arg[k + 1]), "--think N") end
end
local n, every, steps, blocks = 10000, 14, quick and 5 or 20, 9
local side = math.sqrt(n * (960 * 640) / 43)
local w = steer.world { width = side, height = side, edges = "wrap", seed = 7, threads = 1, cell_size = 50 }
local brain = plain and "bt_grazer_plain" or "bt_grazer"
for i = 1, n do
  local a = w:spawn { pos = { w:random() * side, w:random() * side }, tag = i % every == 0 and "hunter" or "grazer",
                      brain = brain, max_speed = 120, energy = 30 + 70 * w:random() }
  if think > 1 then a.think_every = think end
end
local case = (plain and "bt brains (plain)" or "bt brains (11 nodes)") .. (think > 1 and (" /" .. think) or "")
dofile(here .. "/timing.lua")(case, w, n, steps, blocks)
