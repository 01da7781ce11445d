-- maze.lua — navigation: a navigation grid over a maze of walls and pillars.
--
-- Orange hunters chase the prey they can see (nav:visible: no seeing through
-- walls); when it slips out of sight they plan a path (nav:path) to where
-- they last saw it. Grey prey that see a hunter run for the hiding spot
-- farthest from it, along a planned path through the maze. A blue crowd
-- follows one flow field (a standing follow_flow, all in C) to the exit on
-- the right, and comes back in on the left.
--
-- F12 cycles the navigation overlay: grid + paths + flow field, paths only,
-- off (scene args "all", "paths", "off" pick the first). Click: move the exit
-- there (the flow field is rebuilt).

local steer = require "steer"
local vec2 = steer.vec2

local scene = {}

scene.config = { width = 960, height = 640, edges = "bounce", seed = 12, contacts = true,
                 title = "maze: paths, line of sight, flow field (F12: nav overlay)" }

local CELL, CLEARANCE = 10, 9
local CROWD, PREY, HUNTERS = 120, 10, 3
local SIGHT = 260      -- hunters see this far, when nothing is in the way
local FEAR = 200       -- prey run from a hunter they see this close
local CATCH = 14
local REPLAN = 0.5     -- seconds between path plans

-- Walls as rectangles {x0, y0, x1, y1}: the frame (with the exit gap on the
-- right, y 500..600) and the maze inside.
local WALLS = {
    { 0, 0, 960, 10 }, { 0, 630, 960, 640 }, { 0, 0, 10, 640 },
    { 950, 0, 960, 500 }, { 950, 600, 960, 640 },
    { 180, 10, 194, 460 }, { 380, 180, 394, 630 }, { 580, 10, 594, 300 }, { 580, 400, 594, 630 },
    { 770, 120, 784, 520 }, { 194, 300, 300, 314 }, { 394, 180, 500, 194 }, { 60, 540, 300, 554 },
    { 594, 250, 700, 264 }, { 784, 330, 880, 344 }, { 680, 120, 770, 134 },
}
local PILLARS = { { 480, 420, 30 }, { 680, 560, 26 }, { 290, 130, 28 }, { 870, 200, 22 } }
local HIDE = { { 30, 30 }, { 30, 610 }, { 360, 610 }, { 420, 30 }, { 610, 610 }, { 930, 30 }, { 610, 40 },
               { 215, 330 }, { 810, 610 } }
local EXIT = vec2(945, 550)
local ENTRY_X = 40

scene.walls, scene.pillars, scene.exit = WALLS, PILLARS, EXIT   -- for tests

local function nav_of(world) return world.user.nav end

-- A random point of free ground (x between x0 and x1).
local function free_point(world, x0, x1)
    local nav = nav_of(world)
    for _ = 1, 200 do
        local p = vec2(x0 + world:random() * (x1 - x0), 20 + world:random() * (world.height - 40))
        if not nav:blocked(p) then return p end
    end
    return vec2(100, 100)
end

-- ---------------------------------------------------------------- hunters

local hunter = { update = function(...) return scene.hunter_update(...) end }
local prey = { update = function(...) return scene.prey_update(...) end }

-- The nearest prey this hunter sees.
local function visible_prey(a)
    local nav = nav_of(a.world)
    for _, p in ipairs(a.world:neighbors(a, SIGHT, { tag = "prey" })) do
        if nav:visible(a.pos, p.pos) then return p end
    end
end

-- Follows self.path, planning it again towards `goal` every REPLAN seconds.
local function go_to(self, a, goal, dt)
    self.plan_in = (self.plan_in or 0) - dt
    if not self.path or self.plan_in <= 0 or self.goal ~= goal then
        self.path = nav_of(a.world):path(a.pos, goal)   -- nil when there is no way
        self.goal, self.plan_in = goal, REPLAN
    end
    if self.path then a:follow_path(self.path) end
end

function scene.hunter_update(self, a, dt)
    local target = visible_prey(a)
    if target then
        self.state, self.last_seen, self.path = "chase", target.pos, nil
        a:pursue(target)
        if a.pos:dist(target.pos) < CATCH + a.radius then
            self.catches = (self.catches or 0) + 1
            target.pos = free_point(a.world, 20, 940)
            target.vel = vec2(0, 0)
            self.last_seen = nil
        end
    elseif self.last_seen then
        -- out of sight: to where it was last seen, round the walls
        self.state = "search"
        go_to(self, a, self.last_seen, dt)
        if a.pos:dist(self.last_seen) < 20 then self.last_seen = nil end
    else
        -- patrol: a path to a random spot, a new one on arrival
        self.state = "patrol"
        if not self.spot or a.pos:dist(self.spot) < 30 then self.spot = free_point(a.world, 20, 940) end
        go_to(self, a, self.spot, dt)
    end
    a.color = self.state == "chase" and { 255, 150, 0 } or self.state == "search" and { 230, 200, 60 }
        or { 170, 120, 60 }
end

-- ---------------------------------------------------------------- prey

function scene.prey_update(self, a, dt)
    local nav = nav_of(a.world)
    local threat
    for _, h in ipairs(a.world:neighbors(a, FEAR, { tag = "hunter" })) do
        if nav:visible(a.pos, h.pos) then threat = h break end
    end
    if threat and (not self.hide or threat.pos:dist(self.hide) < a.pos:dist(self.hide)) then
        -- the hiding spot the hunter is farthest from, relative to us
        local best, score = nil, -math.huge
        for _, s in ipairs(HIDE) do
            local v = threat.pos:dist(s) - a.pos:dist(s)
            if v > score then best, score = vec2(s[1], s[2]), v end
        end
        self.hide, self.path = best, nil
    end
    if self.hide then
        a.color = { 230, 90, 80 }
        go_to(self, a, self.hide, dt)
        if a.pos:dist(self.hide) < 15 then self.hide, self.path = nil, nil end
    else
        a.color = { 200, 200, 200 }
        a:wander(0.3)
        a:avoid_obstacles(2)
        a:apply(a.vel * -1.0)
    end
end

-- ---------------------------------------------------------------- the crowd

local function crowd_behaviors(field)
    return { { "follow_flow", field = field }, { "separate", radius = 12, weight = 0.8 } }
end

local VIEWS = { all = 1, paths = 2, off = 3 }

-- Scene args: the overlay to start with ("all", "paths" or "off").
function scene.load(world, args)
    for _, r in ipairs(WALLS) do
        world:add_obstacle { polygon = { { r[1], r[2] }, { r[3], r[2] }, { r[3], r[4] }, { r[1], r[4] } } }
    end
    for _, p in ipairs(PILLARS) do world:add_obstacle { pos = { p[1], p[2] }, radius = p[3] } end
    local nav = world:navgrid { cell = CELL, clearance = CLEARANCE }
    world.user.nav = nav
    world.user.field = assert(nav:flow_field(EXIT))
    world.user.cells = nav:cells()
    world.user.view = 1
    for _, arg in ipairs(args or {}) do world.user.view = VIEWS[arg] or world.user.view end
    for _ = 1, CROWD do
        world:spawn { pos = free_point(world, 20, 560), max_speed = 70, max_force = 250, radius = 4,
                      tag = "crowd", color = { 90, 150, 230 }, behaviors = crowd_behaviors(world.user.field) }
    end
    for _ = 1, PREY do
        world:spawn { pos = free_point(world, 20, 940), max_speed = 115, max_force = 400, radius = 5,
                      tag = "prey", brain = prey }
    end
    for _ = 1, HUNTERS do
        world:spawn { pos = free_point(world, 20, 940), max_speed = 105, max_force = 300, radius = 8,
                      tag = "hunter", brain = hunter }
    end
end

function scene.update(world)
    -- evacuees through the exit come back in on the left
    for a in world:agents("crowd") do
        if a.pos.x > 938 then
            a.pos = free_point(world, ENTRY_X - 20, ENTRY_X + 20)
            a.vel = vec2(0, 0)
        end
    end
end

function scene.score(world)
    local total = 0
    for h in world:agents("hunter") do total = total + (h.self.catches or 0) end
    return total
end

function scene.keypressed(world, key)
    if key == "f12" then world.user.view = (world.user.view % 3) + 1 end
end

function scene.mousepressed(world, x, y)
    local f = world.user.nav:flow_field { x, y }
    if f then
        world.user.field = f
        for a in world:agents("crowd") do a.behaviors = crowd_behaviors(f) end
    end
end

local GRID_COLOR = { 70, 70, 140, 110 }
local FLOW_COLOR = { 80, 130, 200, 150 }
local PATH_COLOR = { hunter = { 255, 170, 60 }, prey = { 230, 110, 100 } }

function scene.draw(world, gfx)
    local u = world.user
    local view = u.view or 1   -- 1: everything, 2: paths, 3: off
    if view == 1 then
        for _, c in ipairs(u.cells) do gfx.circle(c, CELL * 0.45, GRID_COLOR, true) end
        local f = u.field
        for y = 2, f.rows - 1, 4 do
            for x = 2, f.cols - 1, 4 do
                local c = vec2((x + 0.5) * f.cell, (y + 0.5) * f.cell)
                if f:distance(c) then gfx.arrow(c, f:dir(c) * 16, FLOW_COLOR) end
            end
        end
        gfx.circle(f.goal, 10, { 90, 230, 120 })
    end
    if view <= 2 then
        for _, tag in ipairs { "hunter", "prey" } do
            for a in world:agents(tag) do
                local p = a.self.path
                if p then
                    local pts = p:points()
                    local from = a.pos
                    for i = a.path_index or 1, #pts do
                        gfx.line(from, pts[i], PATH_COLOR[tag])
                        from = pts[i]
                    end
                end
                if tag == "hunter" and a.self.last_seen then gfx.circle(a.self.last_seen, 6, PATH_COLOR.hunter) end
            end
        end
    end
    gfx.text({ 20, 612 }, ("caught %d   nav overlay: %s (F12)   click: move the exit"):format(
        scene.score(world), ({ "grid + paths + flow", "paths", "off" })[view]))
end

return scene
