-- obstacles_walls.lua — obstacle avoidance (a detection box ahead) and wall
-- avoidance (feelers), on top of wander, combined by priority: walls first,
-- then obstacles, then a little separation, then wander.
--
-- Click: the wanderers nearest the pointer dash away from it.

local steer = require "steer"

local scene = {}

scene.config = { width = 900, height = 600, edges = "bounce", seed = 6,
                 title = "obstacles and walls" }

local COUNT = 24
local INSET = 20
local OBSTACLES = {   -- {x, y, radius}
    { 200, 160, 45 }, { 430, 300, 60 }, { 700, 170, 40 }, { 680, 430, 50 },
    { 230, 440, 35 }, { 560, 90, 25 },
}
-- segments {x1, y1, x2, y2}: the border, then two walls inside
local WALLS = {
    { INSET, INSET, 900 - INSET, INSET }, { 900 - INSET, INSET, 900 - INSET, 600 - INSET },
    { 900 - INSET, 600 - INSET, INSET, 600 - INSET }, { INSET, 600 - INSET, INSET, INSET },
    { 330, 520, 520, 470 }, { 800, 280, 800, 360 },
}

scene.obstacles, scene.walls, scene.inset = OBSTACLES, WALLS, INSET   -- for tests

local function open_point(world)
    for _ = 1, 100 do
        local p = steer.vec2(60 + world:random() * (world.width - 120),
                             60 + world:random() * (world.height - 120))
        local clear = true
        for _, o in ipairs(OBSTACLES) do
            if p:dist(steer.vec2(o[1], o[2])) < o[3] + 15 then clear = false end
        end
        if clear then return p end
    end
    return steer.vec2(60, 60)
end

function scene.load(world)
    for _, o in ipairs(OBSTACLES) do world:obstacle({ o[1], o[2] }, o[3]) end
    for _, w in ipairs(WALLS) do world:wall({ w[1], w[2] }, { w[3], w[4] }) end
    for _ = 1, COUNT do
        world:spawn{
            pos = open_point(world), vel = steer.vec2.from_angle(world:random() * 2 * math.pi, 60),
            max_speed = 100, max_force = 300, radius = 6, tag = "wanderer",
            color = { 200, 200, 120 }, combine = "priority",
            behaviors = { { "avoid_walls", weight = 3 }, { "avoid_obstacles", weight = 3 },
                          { "separate", radius = 20, weight = 1 }, { "wander", weight = 0.8 } },
        }
    end
end

function scene.mousepressed(world, x, y)
    for _, a in ipairs(world:neighbors({ x, y }, 120, { tag = "wanderer" })) do
        local away = (a.pos - steer.vec2(x, y)):normalized()
        a.vel = away * a.max_speed
    end
end

function scene.draw(world, gfx)
    -- The app draws the world's obstacles and walls; the scene adds the side
    -- each wall pushes towards.
    for _, w in ipairs(WALLS) do
        local a, b = steer.vec2(w[1], w[2]), steer.vec2(w[3], w[4])
        gfx.arrow(a:lerp(b, 0.5), (b - a):perp():normalized() * 10, { 110, 110, 120 })
    end
    gfx.text({ 10, world.height - 16 },
        "priority: walls > obstacles > separation > wander    click: scare", { 230, 230, 230 })
end

return scene
