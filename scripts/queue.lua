-- queue.lua — Reynolds' queueing at a doorway: a crowd follows a path
-- through the door to the exit on the far side of a wall (follow_path in
-- "predict" mode: each walker heads for the path and then along it); each
-- walker brakes while someone is in the short box ahead of it ("queue"), so
-- the crowd files through the door instead of piling into it. Walkers turn
-- at a limited rate, so their facing (the drawn heading) swings smoothly.
--
-- Keys: Q toggles queueing (compare the jam without it). Click: move the exit.

local steer = require "steer"

local scene = {}

scene.config = { width = 900, height = 600, edges = "bounce", seed = 12,
                 title = "queueing at a doorway: Q toggles queue" }

local WALKERS = 40
local WALL_X, DOOR_LO, DOOR_HI = 470, 262, 338
scene.door = { x = WALL_X, lo = DOOR_LO, hi = DOOR_HI }   -- for tests

-- The exit beyond the door and the queueing switch live in world.user, so
-- they survive a reload of this file.
local function state(world)
    local u = world.user
    if u.exit == nil then
        u.exit = { 820, 300 }
        u.queue = true
    end
    return u
end

local function start_pos(world)
    return { 40 + world:random() * 300, 60 + world:random() * 480 }
end

-- The route: along the middle of the room, through the door, to the exit.
local function route(world)
    local u = state(world)
    if u.route == nil or u.route_exit ~= u.exit then
        u.route = steer.path{ { 40, 300 }, { WALL_X - 40, 300 }, { WALL_X + 40, 300 }, u.exit, radius = 16 }
        u.route_exit = u.exit
    end
    return u.route
end

local function behave(world, a)
    local u = state(world)
    local list = { { "avoid_walls", weight = 4 } }
    if u.queue then list[#list + 1] = { "queue", tag = "walker", weight = 3 } end
    list[#list + 1] = { "separate", radius = 16, tag = "walker", weight = 1 }
    list[#list + 1] = { "follow_path", path = route(world), mode = "predict", predict = 0.6, offset = 30 }
    a.behaviors = list
end

function scene.load(world)
    state(world)
    world:wall({ WALL_X, 0 }, { WALL_X, DOOR_LO })
    world:wall({ WALL_X, DOOR_HI }, { WALL_X, world.height })
    for _ = 1, WALKERS do
        local a = world:spawn{ pos = start_pos(world), max_speed = 70, max_force = 220, radius = 7,
                               tag = "walker", combine = "priority", turn_rate = 5,
                               color = { 150, 210, 140 } }
        behave(world, a)
    end
end

-- Through the door and at the exit: back to the start of the room.
function scene.update(world)
    local exit = state(world).exit
    for a in world:agents("walker") do
        if a.pos:dist(exit) < 40 then
            a.pos = start_pos(world)
            a.vel = { 0, 0 }
        end
    end
end

function scene.keypressed(world, key)
    if key:lower() == "q" then
        local u = state(world)
        u.queue = not u.queue
        for a in world:agents("walker") do behave(world, a) end
    end
end

function scene.mousepressed(world, x, y)
    if x > WALL_X + 40 then
        state(world).exit = { x, y }
        for a in world:agents("walker") do behave(world, a) end
    end
end

function scene.draw(world, gfx)
    local u = state(world)
    local pts = route(world):points()
    for i = 1, #pts - 1 do gfx.line(pts[i], pts[i + 1], { 70, 90, 70 }) end
    gfx.circle(u.exit, 40, { 90, 140, 90 })
    gfx.text({ u.exit[1] - 14, u.exit[2] - 8 }, "exit", { 180, 220, 180 })
    gfx.text({ 10, world.height - 24 },
        (u.queue and "queue on: walkers brake behind whoever is ahead" or "queue off: everyone pushes")
        .. "    Q: toggle    click right of the wall: move the exit", { 230, 230, 230 })
end

return scene
