-- formation.lua — offset pursuit: each follower holds a slot given in the
-- leader's own frame (x ahead, y to the side), arrives there and matches the
-- leader's velocity, so the shape turns with the leader.
--
-- Click: send the leader there. Keys: 1 wedge, 2 line abreast, 3 column.

local steer = require "steer"

local scene = {}

scene.config = { width = 900, height = 600, edges = "bounce", seed = 8,
                 title = "offset pursuit: formations behind a leader" }

local FOLLOWERS = 8
local GAP = 28
local SHAPES = { "wedge", "line", "column" }

-- The slot of follower i (1-based) in the leader's frame.
local function slot(shape, i)
    local rank, side = math.ceil(i / 2), (i % 2 == 1) and 1 or -1
    if shape == "wedge" then
        return { -GAP * rank, side * GAP * rank }
    elseif shape == "line" then
        return { -GAP, side * GAP * (rank - 0.5) }
    end
    return { -GAP * i, 0 }   -- column
end

-- The leader strolls to its goal (a click, or a random point) and picks a
-- new one once there. Its brain calls through `scene`, so saving this file
-- reaches the leader that already runs.
local leader_brain = { update = function(...) return scene.leader_update(...) end }
function scene.leader_update(self, a, dt)
    local w = a.world
    local goal = steer.vec2(self.goal[1], self.goal[2])
    a:arrive(goal, 120)
    self.waited = (a.pos:dist(goal) < 10) and self.waited + dt or 0
    if self.waited > 1 then
        self.goal = { 120 + w:random() * (w.width - 240), 120 + w:random() * (w.height - 240) }
        self.waited = 0
    end
end

local function leader(world)
    local iter, state, ctl = world:agents("leader")
    return iter(state, ctl)
end

local function take_places(world, shape)
    local l = leader(world)
    l.self.shape = shape
    local i = 0
    for a in world:agents("follower") do
        i = i + 1
        a.behaviors = { { "offset_pursue", leader = l, offset = slot(shape, i) },
                        { "separate", radius = 14, weight = 0.5 } }
    end
end

function scene.load(world)
    world:spawn{ pos = { 200, 300 }, max_speed = 70, max_force = 150, radius = 9,
                 tag = "leader", color = { 255, 210, 80 }, brain = leader_brain,
                 goal = { 700, 300 }, waited = 0, shape = "wedge" }
    for i = 1, FOLLOWERS do
        world:spawn{ pos = { 60 + world:random() * 200, 100 + world:random() * 400 },
                     max_speed = 120, max_force = 300, radius = 6, tag = "follower",
                     color = { 120, 200, 255 }, slot = i }
    end
    take_places(world, "wedge")
end

function scene.mousepressed(world, x, y)
    leader(world).self.goal = { x, y }
end

function scene.keypressed(world, key)
    local shape = SHAPES[tonumber(key)]
    if shape then take_places(world, shape) end
end

-- Where each follower's slot is now, in world units (follower order).
function scene.slots(world)
    local l, out = leader(world), {}
    for i = 1, world:count("follower") do
        local o = slot(l.self.shape, i)
        out[i] = l.pos + l.heading * o[1] + l.side * o[2]
    end
    return out
end

function scene.draw(world, gfx)
    local l = leader(world)
    local shape = l.self.shape
    for _, p in ipairs(scene.slots(world)) do gfx.circle(p, 3, { 90, 110, 140 }) end
    local g = l.self.goal
    gfx.circle(g, 6, { 255, 210, 80 })
    gfx.text({ 10, world.height - 24 },
        "formation: " .. shape .. "    keys 1 wedge  2 line  3 column    click: move the leader",
        { 230, 230, 230 })
end

return scene
