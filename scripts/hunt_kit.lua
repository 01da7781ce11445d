-- hunt_kit.lua — what the hunters of the hunt scene do, whatever decides
-- when: seeing prey, keeping clear, catching. hunter.lua (a state machine)
-- and hunter_bt.lua (a behaviour tree) both use it, each with its own
-- numbers, so the two differ only in how they decide.

local steer = require "steer"

local kit = {}

-- The shortest offset from a to b: across the edges of a wrap world.
local function offset(world, a, b)
    local d = b - a
    if world.edges == "wrap" then
        local w, h = world.width, world.height
        local dx, dy = (d.x + w / 2) % w - w / 2, (d.y + h / 2) % h - h / 2
        d = steer.vec2(dx, dy)
    end
    return d
end

-- Whether the hunter sees p: no obstacle on the straight line between them
-- (the scene's line-of-sight grid, world.user.sight; without one, always).
local function sees(agent, p)
    local nav = agent.world.user.sight
    return not nav or nav:visible(agent.pos, agent.pos + offset(agent.world, agent.pos, p.pos))
end

-- The closest prey in sight (within radius, and not behind an obstacle)
-- that nobody has caught yet. Usually the nearest prey is that one, and
-- world:nearest finds it without listing every prey around; otherwise the
-- sorted list decides.
function kit.closest_prey(agent, radius)
    local world = agent.world
    local nearest = world:nearest(agent, radius, "prey")
    if not nearest or (not nearest.self.caught and sees(agent, nearest)) then return nearest end
    for _, p in ipairs(world:neighbors(agent, radius, { tag = "prey" })) do
        if not p.self.caught and sees(agent, p) then return p end
    end
end

-- The distance world:neighbors measures: the shortest way across the edges
-- of a wrap world.
local function distance(world, a, b)
    local d = b.pos - a.pos
    local dx, dy = math.abs(d.x), math.abs(d.y)
    if world.edges == "wrap" then
        local w, h = world.width, world.height
        dx, dy = dx % w, dy % h
        dx, dy = math.min(dx, w - dx), math.min(dy, h - dy)
    end
    return math.sqrt(dx * dx + dy * dy)
end

-- Whether `target` is still a prey within `radius`, in sight. The distance decides,
-- without listing the hundreds of prey around. It is measured to where the
-- prey is now: one that respawned earlier in this step is let go at once
-- (the neighbour grid would still place it where the step began).
function kit.still_in_range(agent, target, radius)
    return target.tag == "prey" and distance(agent.world, agent, target) <= radius and sees(agent, target)
end

-- Steering shared by every state: obstacles first (avoid_weight), then
-- personal space (hunters closer than `separation`).
function kit.keep_clear(agent, avoid_weight, separation)
    agent:avoid_obstacles(avoid_weight)
    local world = agent.world
    -- most of the time nobody is that close: skip building the list
    if not world:nearest(agent, separation, "hunter") then return end
    agent:separate(world:neighbors(agent, separation, { tag = "hunter" }), 1)
end

-- Catch every uncaught prey within catch_radius of the hunter's body; the
-- prey respawns itself. Counts self.catches; returns whether it caught any.
function kit.try_catch(self, agent, catch_radius)
    local world = agent.world
    local reach = agent.radius + catch_radius
    local caught = 0
    if world:nearest(agent, reach, "prey") then
        for _, p in ipairs(world:neighbors(agent, reach, { tag = "prey" })) do
            if not p.self.caught then
                p.self.caught = true
                p.self.caught_by = agent.id
                caught = caught + 1
            end
        end
    end
    self.catches = (self.catches or 0) + caught
    -- a mark on the app's timeline (it does not change the world)
    if caught > 0 then world:mark("catch") end
    return caught > 0
end

-- A stamina bar over a hunter, frac (0..1) of it filled: green, amber
-- when half gone, red under a quarter. Returns the bar's top left corner.
function kit.stamina_bar(gfx, agent, frac)
    local p = agent.pos
    local w, y = 28, p.y - agent.radius - 12
    local x0 = p.x - w / 2
    local fill = frac > 0.5 and { 90, 220, 90 } or frac > 0.25 and { 240, 200, 60 } or { 230, 70, 60 }
    for dy = 0, 3 do
        gfx.line(steer.vec2(x0, y + dy), steer.vec2(x0 + w, y + dy), { 50, 50, 55 })
        if frac > 0 then
            gfx.line(steer.vec2(x0, y + dy), steer.vec2(x0 + w * frac, y + dy), fill)
        end
    end
    return x0, y
end

return kit
