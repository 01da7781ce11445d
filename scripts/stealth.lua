-- stealth.lua — guards on patrol, a player sneaking past them.
--
-- Four guards walk their patrol routes (a:move_to, waypoint by waypoint).
-- Each looks ahead in a 100 degree cone (a:perceive, line of sight against
-- the walls: the player is safe behind one, not when standing against one
-- in the open) and listens for footsteps (world:noise). A guard who spots
-- the player chases it and alerts the others (a:send to the tag "guard":
-- they come to search where it was seen); when it loses sight it searches
-- the last point it saw the player (a:memory), looks around, and returns
-- to its route. A guard that catches the player sends it back to the start
-- (a message to the player) and everyone stands down.
--
-- Guards think every 3 ticks (a.think_every), staggered by id; their
-- steering runs every tick in C (orders and standing behaviours).
--
-- The player (green) goes where the mouse points; headless, or before the
-- mouse moves, it walks a scripted route around the map.
-- Keys: V view cones on/off, M memories on/off.

local steer = require "steer"
local fsm = require "fsm"
local vec2 = steer.vec2

local scene = {}

scene.config = { width = 960, height = 640, edges = "none", seed = 7,
                 title = "stealth: guards see, hear, chase, search and return" }

local SENSES = { sight = { range = 230, fov = math.rad(100) }, hearing = { range = 60 },
                 tag = "player", memory = 8 }
local THINK_EVERY = 3
local CATCH = 16          -- a guard this close catches the player
local LOOK_AROUND = 2.5   -- seconds a guard searches around the last seen point
local STEP_NOISE = 70     -- how far the player's footsteps carry
local GUARD_SPEED, CHASE_SPEED, PLAYER_SPEED = 55, 95, 85

local PLAYER_START = vec2(50, 600)
local PLAYER_ROUTE = { { 300, 610 }, { 560, 600 }, { 900, 600 }, { 910, 330 }, { 900, 60 },
                       { 560, 60 }, { 250, 150 }, { 60, 160 }, { 60, 420 } }
local GUARD_ROUTES = {
    { { 260, 150 }, { 560, 150 } },
    { { 720, 90 }, { 880, 300 }, { 720, 540 } },
    { { 420, 470 }, { 560, 300 }, { 420, 300 } },
    { { 120, 300 }, { 230, 500 } },
}
-- Walls as rectangles {x0, y0, x1, y1}, pillars as circles {x, y, r}.
local WALLS = { { 0, 0, 960, 10 }, { 0, 630, 960, 640 }, { 0, 0, 10, 640 }, { 950, 0, 960, 640 },
                { 180, 210, 520, 230 }, { 630, 120, 650, 430 }, { 300, 380, 320, 560 }, { 760, 420, 860, 440 } }
local PILLARS = { { 460, 360, 26 }, { 790, 220, 28 }, { 150, 460, 22 } }

local COLOR = { patrol = { 120, 170, 255 }, chase = { 255, 70, 60 }, search = { 255, 190, 60 },
                ["return"] = { 170, 130, 255 }, player = { 90, 230, 110 } }

local function rect(world, r)
    world:add_obstacle { polygon = { { r[1], r[2] }, { r[3], r[2] }, { r[3], r[4] }, { r[1], r[4] } } }
end

local function go(self, a, where)
    self.arrived = false
    a:move_to(where, { speed = self.speed, stop_distance = 6 })
end

-- ---------------------------------------------------------------- guards

-- Looks and listens: self.sees (the player agent, when seen), self.heard
-- (where a noise came from), self.last (where the player was last sensed).
local function sense(self, a)
    self.sees, self.heard = nil, nil
    for _, p in ipairs(a:perceive(SENSES)) do
        if p.sense == "sight" then
            self.sees = p.agent
        elseif not self.heard then
            self.heard = p.position
        end
    end
    local m = a:memory()[1] -- the strongest memory: the player, the only tag perceived
    if m then self.last, self.confidence = m.position, m.confidence end
end

local function spotted(self, a)
    if not self.sees then return nil end
    a:send("guard", "alert", self.sees.pos)
    a.world.user.alerts[#a.world.user.alerts + 1] = { from = a, at = vec2(self.sees.pos.x, self.sees.pos.y),
                                                      tick = a.world.tick }
    return "chase"
end

local machine = fsm.new({
    patrol = {
        enter = function(self, a)
            self.speed = GUARD_SPEED
            go(self, a, self.route[self.wp])
        end,
        update = function(self, a)
            local s = spotted(self, a)
            if s then return s end
            if self.heard then
                self.investigate = self.heard
                return "search"
            end
            if self.arrived then
                self.wp = self.wp % #self.route + 1
                go(self, a, self.route[self.wp])
            end
        end,
    },
    chase = {
        enter = function(_, a)
            a:stop_moving()
            a.max_speed = CHASE_SPEED
        end,
        update = function(self, a)
            local p = self.sees
            if not p then
                self.investigate = self.last
                return "search"
            end
            a.behaviors = { { "pursue", target = p }, { "avoid_obstacles", weight = 2 } }
            if a.pos:dist(p.pos) < CATCH then
                a:send(p, "caught")
                a:send("guard", "stand_down")
                return "return"
            end
        end,
        exit = function(_, a)
            a.behaviors = nil
            a.max_speed = GUARD_SPEED
        end,
    },
    search = {
        enter = function(self, a)
            self.speed, self.looking = CHASE_SPEED * 0.8, nil
            go(self, a, self.investigate or a.pos)
        end,
        update = function(self, a)
            local s = spotted(self, a)
            if s then return s end
            if self.arrived and not self.looking then
                self.looking = self.state_time
                a.behaviors = { { "wander", weight = 0.6 }, { "avoid_obstacles", weight = 2 } }
            end
            if self.looking and self.state_time - self.looking > LOOK_AROUND then return "return" end
        end,
        exit = function(_, a) a.behaviors = nil end,
    },
    ["return"] = {
        enter = function(self, a)
            self.speed = GUARD_SPEED
            go(self, a, self.route[self.wp])
        end,
        update = function(self, a)
            local s = spotted(self, a)
            if s then return s end
            if self.arrived then return "patrol" end
        end,
    },
}, "patrol")

local guard = {}

function guard.spawn(self, a)
    self.route, self.wp = GUARD_ROUTES[a.world.user.next_route], 1
    a.world.user.next_route = a.world.user.next_route + 1
    machine:start(self, a)
end

function guard.update(self, a, dt)
    sense(self, a)
    machine:update(self, a, dt)
    a.color = COLOR[self.state]
end

function guard.message(self, a, msg)
    if msg.kind == "alert" and (self.state == "patrol" or self.state == "return") then
        self.investigate = msg.data
        machine:change(self, a, "search")
    elseif msg.kind == "stand_down" and self.state ~= "patrol" then
        machine:change(self, a, "return")
    end
end

function guard.arrived(self) self.arrived = true end
function guard.move_failed(self) self.arrived = true end

-- ---------------------------------------------------------------- player

local player = {}

function player.spawn(self)
    self.wp, self.arrived, self.speed, self.noise_t = 0, true, PLAYER_SPEED, 0
end

function player.update(self, a, dt)
    local m = steer.mouse and steer.mouse()
    if m and not self.mouse and m:dist(a.pos) > 1 then
        self.mouse = true -- the pointer took over
        a:stop_moving()
    end
    if self.mouse and m then
        a:arrive(m, 40)
    elseif self.arrived then
        self.wp = self.wp % #PLAYER_ROUTE + 1
        go(self, a, PLAYER_ROUTE[self.wp])
    end
    self.noise_t = self.noise_t + dt
    if self.noise_t >= 0.5 and a.speed > 40 then
        self.noise_t = 0
        a.world:noise(a.pos, STEP_NOISE, a)
    end
end

function player.message(self, a, msg)
    if msg.kind == "caught" then
        a.world.user.caught = a.world.user.caught + 1
        a:stop_moving()
        a.pos, a.vel = PLAYER_START, vec2(0, 0)
        self.wp, self.arrived = 0, true
    end
end

function player.arrived(self) self.arrived = true end
function player.move_failed(self) self.arrived = true end

-- ---------------------------------------------------------------- scene

function scene.load(world)
    world.contacts = true
    for _, r in ipairs(WALLS) do rect(world, r) end
    for _, p in ipairs(PILLARS) do world:add_obstacle { pos = { p[1], p[2] }, radius = p[3] } end
    world:navgrid { cell = 8, clearance = 9 }
    local u = world.user
    u.caught, u.alerts, u.next_route = 0, {}, 1
    u.show_cones, u.show_memory = true, true
    world:spawn { pos = PLAYER_START, tag = "player", brain = player, radius = 6,
                  max_speed = PLAYER_SPEED, max_force = 400, color = COLOR.player }
    for i, route in ipairs(GUARD_ROUTES) do
        local g = world:spawn { pos = route[1], tag = "guard", brain = guard, radius = 7, max_speed = GUARD_SPEED,
                                max_force = 300, heading = { i % 2 == 0 and 1 or -1, 0 } }
        g.think_every = THINK_EVERY
    end
end

-- Counts of guards by state, for the HUD and the tests.
function scene.states(world)
    local n = { patrol = 0, chase = 0, search = 0, ["return"] = 0 }
    for g in world:agents("guard") do
        local s = g.self.state
        if s then n[s] = n[s] + 1 end
    end
    return n
end

function scene.update(world)
    local alerts = world.user.alerts
    for i = #alerts, 1, -1 do
        if world.tick - alerts[i].tick > 60 then table.remove(alerts, i) end
    end
end

local function draw_guard(world, g, gfx)
    local s = g.self
    local c = COLOR[s.state] or COLOR.patrol
    if world.user.show_cones then
        local r, half = SENSES.sight.range, SENSES.sight.fov / 2
        local left, right = g.heading:rotated(-half) * r, g.heading:rotated(half) * r
        gfx.line(g.pos, g.pos + left, c)
        gfx.line(g.pos, g.pos + right, c)
        for k = 0, 7 do
            local a0, a1 = -half + k * half / 4, -half + (k + 1) * half / 4
            gfx.line(g.pos + g.heading:rotated(a0) * r, g.pos + g.heading:rotated(a1) * r, c)
        end
    end
    if world.user.show_memory and s.last and s.state ~= "patrol" then
        gfx.circle(s.last, 5, COLOR.search)
        gfx.line(g.pos, s.last, { 120, 100, 60 })
    end
    gfx.text(g.pos + vec2(-18, -22), s.state or "?", c)
end

function scene.draw(world, gfx)
    for g in world:agents("guard") do draw_guard(world, g, gfx) end
    for _, al in ipairs(world.user.alerts) do
        if al.from.alive then
            for g in world:agents("guard") do
                if g ~= al.from then gfx.arrow(al.from.pos, g.pos - al.from.pos, { 255, 120, 90 }) end
            end
        end
        gfx.circle(al.at, 10, { 255, 80, 60 })
    end
    local n = scene.states(world)
    gfx.text({ 16, 588 }, ("caught: %d    patrol %d  chase %d  search %d  return %d    (V cones, M memory)"):format(
        world.user.caught, n.patrol, n.chase, n.search, n["return"]), { 230, 230, 230 })
end

function scene.keypressed(world, key)
    local u = world.user
    if key == "v" then u.show_cones = not u.show_cones end
    if key == "m" then u.show_memory = not u.show_memory end
end

return scene
