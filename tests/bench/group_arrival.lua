-- group_arrival.lua — how long a group order takes against lone units
-- (issue 28: every unit within 1.5x the time a lone unit takes on the same
-- route). Prints one row per case: the map, units, goal, then the first,
-- median and last arrival (s), the worst and mean ratio of a member's
-- arrival to a lone unit's time from its start to its final slot, how
-- many members are above 1.5x, the closest pair (x radii), the deepest
-- body in a wall, and the mean speed at rest. Times are simulated seconds
-- (deterministic), not wall time: the figures are the same on any machine.
--
--   LUA_CPATH='build/?.so;;' lua5.4 tests/bench/group_arrival.lua [--quick]
--
-- Cases: scripts/rts.lua's order (the issue's scene), other goals, 20 and
-- 80 units, and a map with a single door (splitting cannot help there).
package.path = "scripts/?.lua;tests/bench/?.lua;" .. package.path
local steer = require "steer"
local vec2 = steer.vec2
local rts = require "rts"

local quick = arg[1] == "--quick"
local cfg = rts.config

local MAPS = {}
MAPS.rts = { doors = rts.doors, pillars = rts.pillars }
-- The same frame and pillars, the middle wall with one door (375..425).
MAPS.onedoor = { doors = { { 375, 425 } }, pillars = rts.pillars }

local function new_world(map)
  local w = steer.world { width = cfg.width, height = cfg.height, edges = cfg.edges, seed = cfg.seed,
                          contacts = cfg.contacts }
  rts.build_map(w, map.doors, map.pillars)
  local nav = w:navgrid { cell = 8, clearance = 9 }
  return w, nav
end

-- Units in rts.lua's block (8 to a column), from (x0, y0).
local function spawn(w, n, x0, y0, brain)
  local units = {}
  for i = 1, n do
    local r, c = math.floor((i - 1) / 8), (i - 1) % 8
    units[i] = w:spawn { pos = { x0 + r * 22, y0 + c * 22 }, tag = "unit", brain = brain, radius = rts.radius,
                         max_speed = rts.speed, max_force = 240, avoidance = "orca" }
  end
  return units
end

local function lone_time(map, start, goal, a)
  local w = new_world(map)
  local b = w:spawn { pos = start, radius = a.radius, max_speed = a.max_speed, max_force = 240, avoidance = "orca" }
  b:move_to(goal)
  for _ = 1, 90 * 60 do
    w:step()
    if b.move_state == "arrived" then return w.time end
  end
  return math.huge
end

local function run(name, mapname, n, goal, x0, y0)
  local map = MAPS[mapname]
  local w = new_world(map)
  local arrived = {}
  local brain = { arrived = function(_, a) arrived[a.id] = arrived[a.id] or a.world.time end }
  local units = spawn(w, n, x0 or 110, y0 or 310, brain)
  local starts = {}
  for i, a in ipairs(units) do starts[i] = a.pos end
  w:move_group(units, goal, { spacing = 18 })
  local steps = 90 * 60
  local closest, deepest, speed, ns = math.huge, -math.huge, 0, 0
  local all_home
  for s = 1, steps do
    w:step()
    local home = true
    for i = 1, n do
      local a = units[i]
      deepest = math.max(deepest, rts.depth_in(a.pos, a.radius, map.doors, map.pillars))
      for j = i + 1, n do closest = math.min(closest, a.pos:dist(units[j].pos) / (a.radius + units[j].radius)) end
      home = home and a.move_state == "arrived"
    end
    if home and not all_home then all_home = s end
    if all_home and s >= all_home + 120 then
      for i = 1, n do speed, ns = speed + units[i].speed, ns + 1 end
    end
    if all_home and s >= all_home + 240 then break end
  end
  local times, worst, sum, over = {}, 0, 0, 0
  for i, a in ipairs(units) do
    local t = arrived[a.id] or math.huge
    times[#times + 1] = t
    local r = t / lone_time(map, starts[i], a.move_goal, a)
    worst, sum = math.max(worst, r), sum + r
    if r > 1.5 then over = over + 1 end
  end
  table.sort(times)
  local rest = ns > 0 and speed / ns / rts.speed or -1
  print(("%-24s %-8s %3d  (%4d,%3d)  first %5.1f  median %5.1f  last %5.1f  worst %.2fx  mean %.2fx  >1.5x %2d"
         .. "  closest %.3f  wall %.2f  rest %.2g"):format(name, mapname, n, goal.x, goal.y, times[1],
         times[(n + 1) // 2], times[n], worst, sum / n, over, closest, deepest, rest))
  return worst
end

local cases = {
  { "issue (rts.lua)", "rts", 40, vec2(1000, 400) },
  { "goal low", "rts", 40, vec2(950, 650) },
  { "goal high", "rts", 40, vec2(900, 150) },
  { "20 units", "rts", 20, vec2(1000, 400) },
  { "80 units", "rts", 80, vec2(1000, 400) },
  { "start high, goal low", "rts", 40, vec2(1000, 600), 110, 100 },
  { "one door", "onedoor", 40, vec2(1000, 400) },
  { "one door, 20", "onedoor", 20, vec2(900, 550) },
}
print("# group orders against lone units (tests/bench/group_arrival.lua); simulated seconds")
for k, c in ipairs(cases) do
  if quick and k > 1 then break end
  run(table.unpack(c))
end
