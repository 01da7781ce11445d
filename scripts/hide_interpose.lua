-- hide_interpose.lua — hide and interpose.
--
-- The red hunter roams (click: send it somewhere). Grey hiders put an
-- obstacle between themselves and it: each picks the hiding spot just behind
-- the nearest obstacle, on the far side from the hunter. The cyan bodyguard
-- interposes: it heads for the midpoint between the hunter and the yellow
-- VIP, aiming where both will be.

local steer = require "steer"

local scene = {}

scene.config = { width = 900, height = 600, edges = "bounce", seed = 9,
                 title = "hide and interpose" }

local HIDERS = 6
local OBSTACLES = {   -- {x, y, radius}
    { 220, 170, 38 }, { 470, 140, 30 }, { 700, 200, 45 },
    { 300, 420, 45 }, { 600, 430, 35 }, { 450, 300, 25 },
}

scene.obstacles = OBSTACLES   -- for tests: the world has no obstacle query

-- Its brain calls through `scene`, so saving this file reaches the
-- hunter that already runs.
local hunter_brain = { update = function(...) return scene.hunter_update(...) end }
function scene.hunter_update(self, a, dt)
    a:avoid_obstacles(3)
    if self.goal then
        local g = steer.vec2(self.goal[1], self.goal[2])
        a:arrive(g, 80)
        self.idle = a.pos:dist(g) < 15 and self.idle + dt or 0
        if self.idle > 2 then self.goal = nil end
    else
        a:wander()
        a:contain(2)
    end
end

local function first(world, tag)
    local iter, state, ctl = world:agents(tag)
    return iter(state, ctl)
end

function scene.load(world)
    for _, o in ipairs(OBSTACLES) do world:obstacle({ o[1], o[2] }, o[3]) end
    local hunter = world:spawn{ pos = { 450, 560 }, vel = { 0, -60 }, max_speed = 90,
                                max_force = 250, radius = 8, tag = "hunter",
                                color = { 235, 60, 50 }, brain = hunter_brain,
                                combine = "priority", idle = 0 }
    local vip = world:spawn{ pos = { 120, 300 }, max_speed = 40, max_force = 200, radius = 7,
                             tag = "vip", color = { 250, 220, 80 }, combine = "priority",
                             behaviors = { { "avoid_obstacles", weight = 3 }, { "wander" },
                                           { "contain", weight = 2 } } }
    world:spawn{ pos = { 160, 300 }, max_speed = 160, max_force = 500, radius = 7,
                 tag = "guard", color = { 80, 220, 230 }, combine = "priority",
                 behaviors = { { "avoid_obstacles", weight = 3 },
                               { "interpose", a = hunter, b = vip } } }
    for i = 1, HIDERS do
        world:spawn{ pos = { 100 + 130 * i, 60 + 15 * i }, max_speed = 110, max_force = 350,
                     radius = 6, tag = "hider", color = { 180, 180, 190 }, combine = "priority",
                     behaviors = { { "avoid_obstacles", weight = 3 },
                                   { "separate", radius = 16 },
                                   { "hide", threat = hunter } } }
    end
end

function scene.mousepressed(world, x, y)
    local h = first(world, "hunter").self
    h.goal, h.idle = { x, y }, 0
end

function scene.draw(world, gfx)
    local hunter, vip = first(world, "hunter"), first(world, "vip")
    gfx.line(hunter.pos, vip.pos, { 70, 90, 100 })
    gfx.circle(hunter.pos:lerp(vip.pos, 0.5), 4, { 80, 220, 230 })
    if hunter.self.goal then gfx.circle(hunter.self.goal, 6, { 235, 60, 50 }) end
    gfx.text({ 10, world.height - 24 },
        "grey hide behind obstacles    cyan interposes between hunter and VIP    click: move the hunter",
        { 230, 230, 230 })
end

return scene
