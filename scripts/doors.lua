-- doors.lua — an RTS group order the way a game writes it today: 40 units
-- on the left of a 1200 x 800 map, a wall with three doors down the middle,
-- pillars on both sides, ordered to a block of slots on the right.
--
-- Each unit plans its own path on a navigation grid (nav:path), follows it
-- (follow_path, Reynolds' predictive mode) and, near its end, arrives at its
-- slot of a fixed-anchor formation (a block); ORCA keeps the units apart
-- and contacts keep them out of the walls. Once there they come to rest:
-- no creeping, no turning on the spot.
--
-- Right click (or scene args "x,y"): order the group to that point.
-- The scene's numbers (scene.stats) serve the tests: arrival times, and the
-- units' speed and turning once they are home.

local steer = require "steer"
local vec2 = steer.vec2

local scene = {}

scene.config = { width = 1200, height = 800, edges = "none", seed = 4, contacts = true,
                 title = "doors: a group order through three doors (right click: order)" }

local UNITS, RADIUS, SPEED = 40, 6, 60
local CELL, CLEARANCE = 8, 9
local SPACING = 18
local SLOT_SLOWING = 40

-- The wall down the middle (x 590..610) with doors at these y ranges, and
-- the map's frame.
local DOORS = { { 130, 180 }, { 375, 425 }, { 620, 670 } }
local PILLARS = { { 380, 220, 26 }, { 420, 560, 30 }, { 790, 260, 28 }, { 800, 540, 24 }, { 300, 400, 18 } }
scene.doors, scene.pillars = DOORS, PILLARS

local function rect(world, x0, y0, x1, y1)
  world:add_obstacle { polygon = { { x0, y0 }, { x1, y0 }, { x1, y1 }, { x0, y1 } } }
end

local function build_map(world)
  rect(world, 0, 0, 1200, 10); rect(world, 0, 790, 1200, 800)
  rect(world, 0, 0, 10, 800); rect(world, 1190, 0, 1200, 800)
  local y = 10
  for _, d in ipairs(DOORS) do
    rect(world, 590, y, 610, d[1])
    y = d[2]
  end
  rect(world, 590, y, 610, 790)
  for _, p in ipairs(PILLARS) do world:add_obstacle { pos = { p[1], p[2] }, radius = p[3] } end
end

-- A block of slots, rows across the direction of travel.
local function block(i, n)
  local cols = math.ceil(math.sqrt(n))
  local r, c = math.floor((i - 1) / cols), (i - 1) % cols
  local rows = math.ceil(n / cols)
  return -(r - (rows - 1) / 2) * SPACING, (c - (cols - 1) / 2) * SPACING
end

-- ---------------------------------------------------------------- units

local unit = {}

function unit.update(self, a)
  local u = a.world.user
  if self.path and self.mode == "path" then
    a:follow_path(self.path, { mode = "predict", predict = 0.4, offset = 24 })
    if a.pos:dist(u.goal) < 70 then self.mode = "slot" end
  end
  if self.mode == "slot" or not self.path then
    local s = u.formation:slot(a)
    if s then a:arrive(s, SLOT_SLOWING) end
  end
end

function unit.draw(self, _, gfx)
  if self.path and self.mode == "path" then
    local pts = self.path:points()
    for k = 2, #pts do gfx.line(pts[k - 1], pts[k], { 60, 90, 120 }) end
  end
end

-- Every unit plans its own path to the goal; slots from where they stand.
function scene.order(world, goal)
  local u = world.user
  u.goal = goal
  u.ordered_at = world.time
  u.arrived = {}
  u.formation:set_anchor(goal, vec2(1, 0))
  u.formation:reassign()
  for a in world:agents("unit") do
    local s = a.self
    s.path = u.nav:path(a.pos, u.formation:slot(a) or goal, 16)
    s.mode = "path"
  end
end

function scene.load(world, args)
  build_map(world)
  local u = world.user
  u.nav = world:navgrid { cell = CELL, clearance = CLEARANCE }
  u.formation = steer.formation { pattern = block, spacing = SPACING, anchor = vec2(1000, 400),
                                  heading = vec2(1, 0) }
  local cols = 8
  for i = 1, UNITS do
    local r, c = math.floor((i - 1) / cols), (i - 1) % cols
    local a = world:spawn { pos = { 110 + r * 22, 310 + c * 22 }, tag = "unit", brain = unit,
                            radius = RADIUS, max_speed = SPEED, max_force = 240, avoidance = "orca",
                            color = { 120, 200, 255 } }
    u.formation:add(a)
  end
  local x, y = tostring(args and args[1] or ""):match("^([%d.]+),([%d.]+)$")
  scene.order(world, vec2(tonumber(x) or 1000, tonumber(y) or 400))
end

-- Arrival times and the units' motion once home, for the tests.
function scene.update(world)
  local u = world.user
  for a in world:agents("unit") do
    local s = u.formation:slot(a)
    if s and not u.arrived[a.id] and a.pos:dist(s) < 2 and a.speed < 1 then
      u.arrived[a.id] = world.time - u.ordered_at
    end
  end
end

function scene.mousepressed(world, x, y, button)
  if button == 2 or button == "right" then scene.order(world, vec2(x, y)) end
end

function scene.draw(world, gfx)
  local u = world.user
  for _, s in ipairs(u.formation:slots()) do gfx.circle(s, 2, { 80, 200, 120 }) end
  local n = 0
  for _ in pairs(u.arrived) do n = n + 1 end
  gfx.text(vec2(1040, 20), ("%d/%d units home"):format(n, UNITS), { 220, 220, 220 })
end

return scene
