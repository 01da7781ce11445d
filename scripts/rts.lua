-- rts.lua — a group order the way a game gives it: select, right click, go.
--
-- 40 units on the left of a 1200 x 800 map, a wall with three doors down
-- the middle, pillars on both sides. One call, world:move_group, orders
-- them all: one path for the group, slots laid out as a block on free
-- space at the goal and filled from the inside out, each unit resting on
-- its slot when it gets there. ORCA keeps them apart and contacts keep
-- them out of the walls. Compare scripts/doors.lua, the same order written
-- by hand with the 1.1 API.
--
-- Right click (or scene args "x,y"): order the group to that point.
-- Select a unit (left click in the app): its route, its state and its slot
-- are drawn, and its order shows in the panel.
-- scene.stats (see scene.update) serves the tests: each unit's arrival
-- time and the order in which the slots were taken.

local steer = require "steer"
local vec2 = steer.vec2

local scene = {}

scene.config = { width = 1200, height = 800, edges = "none", seed = 4, contacts = true,
                 title = "rts: right click orders the group (world:move_group)" }

local UNITS, RADIUS, SPEED = 40, 6, 60
local CELL, CLEARANCE = 8, 9
local SPACING = 18

local DOORS = { { 130, 180 }, { 375, 425 }, { 620, 670 } }
local PILLARS = { { 380, 220, 26 }, { 420, 560, 30 }, { 790, 260, 28 }, { 800, 540, 24 }, { 300, 400, 18 } }
scene.doors, scene.pillars = DOORS, PILLARS
scene.units, scene.radius, scene.speed = UNITS, RADIUS, SPEED

local function rect(world, x0, y0, x1, y1)
  world:add_obstacle { polygon = { { x0, y0 }, { x1, y0 }, { x1, y1 }, { x0, y1 } } }
end

-- The map: a frame, the middle wall (x 590..610) open at the doors (y
-- ranges), the pillars ({x, y, radius}). Other doors and pillars make the
-- variants the bench measures (tests/bench/group_arrival.lua).
function scene.build_map(world, doors, pillars)
  rect(world, 0, 0, 1200, 10); rect(world, 0, 790, 1200, 800)
  rect(world, 0, 0, 10, 800); rect(world, 1190, 0, 1200, 800)
  local y = 10
  for _, d in ipairs(doors or DOORS) do
    rect(world, 590, y, 610, d[1])
    y = d[2]
  end
  rect(world, 590, y, 610, 790)
  for _, p in ipairs(pillars or PILLARS) do world:add_obstacle { pos = { p[1], p[2] }, radius = p[3] } end
end

-- How deep a body of radius r at p lies in the middle wall and the pillars
-- (> 0: that far inside; the tests and the bench check orders with it).
function scene.depth_in(p, r, doors, pillars)
  local worst = -math.huge
  local function box(x0, y0, x1, y1)
    local dx, dy = math.max(x0 - p.x, p.x - x1, 0), math.max(y0 - p.y, p.y - y1, 0)
    local out = math.sqrt(dx * dx + dy * dy)
    local inside = math.min(p.x - x0, x1 - p.x, p.y - y0, y1 - p.y)
    worst = math.max(worst, out > 0 and r - out or r + inside)
  end
  local y = 10
  for _, d in ipairs(doors or DOORS) do
    box(590, y, 610, d[1]); y = d[2]
  end
  box(590, y, 610, 790)
  for _, q in ipairs(pillars or PILLARS) do
    worst = math.max(worst, r - (math.sqrt((p.x - q[1]) ^ 2 + (p.y - q[2]) ^ 2) - q[3]))
  end
  return worst
end

-- ---------------------------------------------------------------- units

local unit = {}

function unit.arrived(_, a)
  local s = a.world.user.stats
  if s and not s.arrived[a.id] then
    s.arrived[a.id] = a.world.time - s.ordered_at
    s.slot_order[#s.slot_order + 1] = a.move_slot
  end
end

function unit.move_failed(_, a, why)
  local s = a.world.user.stats
  if s then s.failed[#s.failed + 1] = { id = a.id, why = why } end
end

-- One order for all of them.
function scene.order(world, goal)
  local u = world.user
  local agents = {}
  for a in world:agents("unit") do agents[#agents + 1] = a end
  u.goal = goal
  u.group = world:move_group(agents, goal, { spacing = SPACING })
  u.stats = { ordered_at = world.time, arrived = {}, slot_order = {}, failed = {} }
end

function scene.spawn_units(world)
  local cols = 8
  for i = 1, UNITS do
    local r, c = math.floor((i - 1) / cols), (i - 1) % cols
    world:spawn { pos = { 110 + r * 22, 310 + c * 22 }, tag = "unit", brain = unit, radius = RADIUS,
                  max_speed = SPEED, max_force = 240, avoidance = "orca", color = { 120, 200, 255 } }
  end
end

function scene.load(world, args)
  scene.build_map(world)
  world.user.nav = world:navgrid { cell = CELL, clearance = CLEARANCE }
  scene.spawn_units(world)
  local x, y = tostring(args and args[1] or ""):match("^([%d.]+),([%d.]+)$")
  scene.order(world, vec2(tonumber(x) or 1000, tonumber(y) or 400))
end

function scene.mousepressed(world, x, y, button)
  if button == 2 or button == "right" then scene.order(world, vec2(x, y)) end
end

function scene.draw(world, gfx)
  local u = world.user
  if u.group then
    for _, s in ipairs(world:group_slots(u.group)) do
      gfx.circle(s.pos, 2, s.taken and { 80, 200, 120 } or { 90, 90, 90 })
    end
  end
  local n = 0
  for _ in pairs(u.stats.arrived) do n = n + 1 end
  gfx.text(vec2(20, 730), ("%d/%d units home"):format(n, UNITS), { 220, 220, 220 })
  gfx.text(vec2(20, 746), ("paths queued: %d"):format(world.path_pending), { 160, 160, 160 })
end

return scene
