-- path_following.lua — Reynolds' path following (mode "predict"): each
-- vehicle predicts where it will be half a second ahead, and when that
-- point would leave the corridor (path.radius) it seeks a point a little
-- further along the path, so it cuts corners smoothly. The waypoint mode
-- (seek each waypoint in turn until inside its circle) is the other option.
-- A looping path goes round for ever; an open one ends with arrive.
--
-- Keys: L switches between the loop and the open path, M between the modes.

local steer = require "steer"

local scene = {}

scene.config = { width = 900, height = 600, edges = "bounce", seed = 7,
                 title = "path following: L loop / open path, M predict / waypoints" }

local COUNT = 8
local RADIUS = 24
local LOOP = { { 150, 120 }, { 450, 80 }, { 750, 130 }, { 820, 300 }, { 700, 480 },
               { 450, 360 }, { 200, 500 }, { 90, 320 } }
local OPEN = { { 80, 540 }, { 250, 420 }, { 420, 500 }, { 560, 300 }, { 420, 160 },
               { 640, 90 }, { 820, 220 } }

local function make(points, loop)
    local spec = { loop = loop, radius = RADIUS }
    for i, p in ipairs(points) do spec[i] = p end
    return steer.path(spec)
end

-- The scene's settings live in the followers' self (they survive a reload
-- of this file): loop, and both paths.
local function settings(world)
    local iter, state, ctl = world:agents("follower")
    return iter(state, ctl).self
end

local function follow(a, s)
    a.behaviors = { { "follow_path", path = s.loop and s.loop_path or s.open_path, mode = s.mode },
                    { "separate", radius = 18, weight = 0.6 } }
end

-- Follower i starts at waypoint i of the loop and goes round from there, so
-- the followers spread out along it instead of queueing for waypoint 1.
local function rotated(points, k)
    local out = {}
    for j = 1, #points do out[j] = points[(j + k - 1) % #points + 1] end
    return out
end

function scene.load(world)
    local open_path = make(OPEN, false)
    for i = 1, COUNT do
        local start = LOOP[(i - 1) % #LOOP + 1]
        local a = world:spawn{
            pos = start, max_speed = 110, max_force = 260,
            radius = 6, tag = "follower", color = { 120, 200, 230 },
            loop = true, loop_path = make(rotated(LOOP, i - 1), true), open_path = open_path,
            mode = "predict",
        }
        follow(a, a.self)
    end
end

function scene.keypressed(world, key)
    if key:lower() == "m" then
        local mode = settings(world).mode == "predict" and "waypoints" or "predict"
        for a in world:agents("follower") do
            a.self.mode = mode
            follow(a, a.self)
        end
    elseif key:lower() == "l" then
        local loop = not settings(world).loop
        for a in world:agents("follower") do
            a.self.loop = loop
            follow(a, a.self)
        end
    end
end

-- The waypoints of the path in use, and whether it loops.
function scene.route(world)
    local loop = settings(world).loop
    return loop and LOOP or OPEN, loop
end

function scene.draw(world, gfx)
    local pts, loop = scene.route(world)
    local colour = { 200, 200, 120 }
    for i = 1, #pts - 1 do gfx.line(pts[i], pts[i + 1], colour) end
    if loop then gfx.line(pts[#pts], pts[1], colour) end
    for i, p in ipairs(pts) do
        gfx.circle(p, RADIUS, { 90, 90, 70 })
        gfx.text({ p[1] + RADIUS, p[2] - 8 }, tostring(i), { 160, 160, 120 })
    end
    gfx.text({ 10, world.height - 24 },
        (loop and "looping path" or "open path: arrives at the end") .. "    L: switch    mode: "
        .. settings(world).mode .. "    M: switch", { 230, 230, 230 })
end

return scene
