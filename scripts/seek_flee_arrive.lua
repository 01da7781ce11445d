-- seek_flee_arrive.lua — the three simplest behaviours (seed 000).
--
-- Click sets the target. Keys: 1 seek, 2 flee, 3 arrive,
-- D cycles arrive's deceleration: linear (the slowing-radius ramp) or
-- Buckland's slow / normal / fast. The dots behind the vehicle are dropped
-- every 0.1 s: where they bunch up, it is braking.
--
-- Arguments pick the starting mode: `steer scripts/seek_flee_arrive.lua -- flee`
-- (seek, flee, arrive, or a deceleration: linear, slow, normal, fast).

local steer = require "steer"

local scene = {}

scene.config = { width = 800, height = 600, edges = "bounce", seed = 1,
                 title = "seek / flee / arrive: click sets the target" }

local MODES = { "seek", "flee", "arrive" }
local DECELERATIONS = { "linear", "slow", "normal", "fast" }
local SLOWING_RADIUS = 150   -- arrive, linear ramp
local PANIC_RADIUS = 180     -- flee ignores targets farther than this
local TRAIL_EVERY, TRAIL_MAX = 0.1, 40

-- Everything the scene remembers lives in the vehicle's self, so it survives
-- a reload of this file; the brain calls through `scene`, so the reload
-- reaches the vehicle that already runs.
local vehicle_brain = { update = function(...) return scene.vehicle_update(...) end }

function scene.vehicle_update(self, a, dt)
    local target = steer.vec2(self.target[1], self.target[2])
    if self.mode == "seek" then
        a:seek(target)
    elseif self.mode == "flee" then
        if a:flee(target, PANIC_RADIUS):len() == 0 then
            a:apply(a.vel * -2)   -- safe: brake instead of drifting into a wall
        end
    elseif self.decel == "linear" then
        a:arrive(target, SLOWING_RADIUS)
    else
        a:arrive(target, SLOWING_RADIUS, 1, self.decel)
    end

    -- no click yet: pick a new target once the vehicle has settled
    self.still = a.speed < 2 and (self.still or 0) + dt or 0
    if not self.clicked and (self.still > 1 or (self.mode ~= "arrive" and self.clock % 4 < dt)) then
        local w = a.world
        self.target = { 100 + w:random() * (w.width - 200), 100 + w:random() * (w.height - 200) }
        self.still = 0
    end

    self.clock = self.clock + dt
    if self.clock - self.dropped >= TRAIL_EVERY then
        self.dropped = self.clock
        table.insert(self.trail, { a.pos.x, a.pos.y })
        if #self.trail > TRAIL_MAX then table.remove(self.trail, 1) end
    end
end

local function vehicle(world)
    local iter, state, ctl = world:agents("vehicle")
    return iter(state, ctl)
end

local function has(list, v)
    for _, x in ipairs(list) do if x == v then return true end end
    return false
end

function scene.load(world, args)
    local mode, decel = "arrive", "linear"
    for _, arg in ipairs(args or {}) do
        if has(MODES, arg) then mode = arg end
        if has(DECELERATIONS, arg) then mode, decel = "arrive", arg end
    end
    world:spawn{ pos = { 120, 300 }, max_speed = 200, max_force = 300, radius = 8,
                 tag = "vehicle", color = { 90, 180, 255 }, brain = vehicle_brain,
                 mode = mode, decel = decel, target = { 600, 300 },
                 clicked = false, trail = {}, clock = 0, dropped = 0 }
end

function scene.mousepressed(world, x, y)
    local s = vehicle(world).self
    s.target, s.clicked, s.trail = { x, y }, true, {}
end

local function index_of(list, v)
    for i, x in ipairs(list) do if x == v then return i end end
    return 1
end

function scene.keypressed(world, key)
    local s = vehicle(world).self
    key = key:lower()
    if MODES[tonumber(key)] then
        s.mode, s.trail = MODES[tonumber(key)], {}
    elseif key == "d" then
        s.decel = DECELERATIONS[index_of(DECELERATIONS, s.decel) % #DECELERATIONS + 1]
        s.mode, s.trail = "arrive", {}
    end
end

function scene.draw(world, gfx)
    local a = vehicle(world)
    local s = a.self
    local t = steer.vec2(s.target[1], s.target[2])
    local red = { 255, 90, 80 }
    gfx.line(t - steer.vec2(8, 0), t + steer.vec2(8, 0), red)
    gfx.line(t - steer.vec2(0, 8), t + steer.vec2(0, 8), red)
    if s.mode == "flee" then
        gfx.circle(t, PANIC_RADIUS, { 120, 60, 60 })
    elseif s.mode == "arrive" and s.decel == "linear" then
        gfx.circle(t, SLOWING_RADIUS, { 60, 90, 120 })
    end
    for _, p in ipairs(s.trail) do gfx.circle(p, 2, { 90, 180, 255 }, true) end
    gfx.arrow(a.pos, a.vel * 0.3, { 120, 220, 120 })

    local mode = s.mode == "arrive" and ("arrive, deceleration " .. s.decel) or s.mode
    gfx.text({ 10, world.height - 44 }, string.format("%s    speed %3.0f / %.0f",
        mode, a.speed, a.max_speed), { 230, 230, 230 })
    gfx.text({ 10, world.height - 24 },
        "click: target    1 seek  2 flee  3 arrive    D: deceleration", { 160, 160, 160 })
end

return scene
