-- formation.lua — formations with slot assignment (steer.formation): the
-- pattern lays out one slot per member in the leader's frame (x ahead, y to
-- the side), members are assigned to slots by least total distance, and
-- reassigned when the leader turns around or members join or leave, so
-- nobody crosses the whole formation to reach its slot. The leader turns at
-- a limited rate (its facing is drawn); the formation turns with it.
--
-- Click: send the leader there. Keys: 1 wedge, 2 line abreast, 3 column,
-- 4 circle, 5 a function pattern (two files), 6 Reynolds' leader following
-- instead of slots; + / - add or remove a follower. Scene argument: the
-- shape to start with (wedge, line, column, circle, files, follow).

local steer = require "steer"

local scene = {}

scene.config = { width = 900, height = 600, edges = "bounce", seed = 8,
                 title = "formations: slots assigned by least total distance" }

local FOLLOWERS = 8
local GAP = 28
local SHAPES = { "wedge", "line", "column", "circle", "files", "follow" }

-- Key 5: two files side by side behind the leader.
local function files(i, _)
    local row, side = math.ceil(i / 2), (i % 2 == 1) and 1 or -1
    return -GAP * row, side * GAP * 0.6
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
    -- the formation's members steer to their slots in the same step
    if self.formation then self.formation:update() end
end

local function leader(world)
    local iter, state, ctl = world:agents("leader")
    return iter(state, ctl)
end

local function follower_behaviors(l, shape)
    if shape == "follow" then
        return { { "follow_leader", leader = l, distance = 30 },
                 { "separate", radius = 16, tag = "follower", weight = 1.5 } }
    end
    return { { "separate", radius = 14, tag = "follower", weight = 0.5 } }
end

local function take_places(world, shape)
    local l = leader(world)
    l.self.shape = shape
    if shape == "follow" then
        l.self.formation = nil
    else
        local pattern = shape == "files" and files or shape
        l.self.formation = steer.formation{ pattern = pattern, spacing = GAP, leader = l }
    end
    for a in world:agents("follower") do
        a.behaviors = follower_behaviors(l, shape)
        if l.self.formation then l.self.formation:add(a) end
    end
end

local function spawn_follower(world, pos)
    return world:spawn{ pos = pos, max_speed = 120, max_force = 300, radius = 6, tag = "follower",
                        turn_rate = 6, color = { 120, 200, 255 } }
end

-- `steer scripts/formation.lua -- circle` starts with another shape.
function scene.load(world, args)
    world:spawn{ pos = { 200, 300 }, max_speed = 70, max_force = 150, radius = 9, turn_rate = 1.5,
                 tag = "leader", color = { 255, 210, 80 }, brain = leader_brain,
                 goal = { 700, 300 }, waited = 0, shape = "wedge" }
    for _ = 1, FOLLOWERS do
        spawn_follower(world, { 60 + world:random() * 200, 100 + world:random() * 400 })
    end
    local first = args and args[1]
    for _, s in ipairs(SHAPES) do if s == first then take_places(world, s) return end end
    take_places(world, "wedge")
end

function scene.mousepressed(world, x, y)
    leader(world).self.goal = { x, y }
end

function scene.keypressed(world, key)
    local l = leader(world)
    local shape = SHAPES[tonumber(key)]
    if shape then
        take_places(world, shape)
    elseif key == "+" or key == "=" then
        local a = spawn_follower(world, { world:random() * world.width, world:random() * world.height })
        a.behaviors = follower_behaviors(l, l.self.shape)
        if l.self.formation then l.self.formation:add(a) end
    elseif key == "-" and world:count("follower") > 1 then
        local last
        for a in world:agents("follower") do last = a end
        world:remove(last)   -- the formation drops it and reassigns at its next update
    end
end

-- Where each follower's slot is now, in world units (follower order); in
-- leader-following mode, the point behind the leader.
function scene.slots(world)
    local l, out = leader(world), {}
    local f = l.self.formation
    for a in world:agents("follower") do
        out[#out + 1] = f and f:slot(a) or (l.pos - l.heading * 30)
    end
    return out
end

function scene.draw(world, gfx)
    local l = leader(world)
    local f = l.self.formation
    if f then
        for _, p in ipairs(f:slots()) do gfx.circle(p, 3, { 90, 110, 140 }) end
        for _, a in ipairs(f:members()) do gfx.line(a.pos, f:slot(a), { 60, 80, 110 }) end
    else
        gfx.arrow(l.pos, l.heading * 80, { 120, 70, 60 })   -- the zone followers keep out of
    end
    gfx.circle(l.self.goal, 6, { 255, 210, 80 })
    gfx.text({ 10, world.height - 24 },
        "formation: " .. l.self.shape .. "   keys 1 wedge 2 line 3 column 4 circle 5 files 6 follow"
        .. "   +/- member   click: move the leader", { 230, 230, 230 })
end

return scene
