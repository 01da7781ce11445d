-- pursuit_evade.lua — pursuit beats seek.
--
-- A rabbit wanders and evades whoever comes close. Two chasers with the same
-- speed and force race for it from the same start: orange pursues (aims
-- where the rabbit will be: the cross), blue merely seeks (aims where it
-- is). Whoever touches it first scores and a new race begins.
-- Click: start a race with the rabbit there.
--
-- Try RABBIT_FORCE = 500 (save while it runs): a nimbler rabbit jinks past
-- the pursuer's guess and plain seek starts winning.

local steer = require "steer"

local scene = {}

scene.config = { width = 900, height = 600, edges = "wrap", seed = 2,
                 title = "pursuit and evade: orange pursues, blue seeks" }

local RABBIT_FORCE = 250    -- how sharply the rabbit can turn
local THREAT_RADIUS = 120
local CATCH = 14
local START = 260   -- each race starts with both chasers this far from the rabbit

-- Its brain calls through `scene`, so saving this file reaches the
-- rabbit that already runs.
local rabbit_brain = { update = function(...) return scene.rabbit_update(...) end }
function scene.rabbit_update(_, a)
    for _, c in ipairs(a.world:neighbors(a, THREAT_RADIUS)) do
        a:evade(c, THREAT_RADIUS)
    end
    a:wander(0.6)
end

local function first(world, tag)
    local iter, state, ctl = world:agents(tag)
    return iter(state, ctl)
end

-- A new race: the rabbit somewhere, both chasers side by side START away.
local function new_race(world, rabbit, pos)
    rabbit.pos = pos or { world:random() * world.width, world:random() * world.height }
    local dir = steer.vec2.from_angle(world:random() * 2 * math.pi)
    local start = rabbit.pos + dir * START
    for _, tag in ipairs{ "pursuer", "seeker" } do
        local c = first(world, tag)
        c.pos = start + dir:perp() * (tag == "pursuer" and 8 or -8)
        c.vel = { 0, 0 }
    end
end

function scene.load(world)
    local rabbit = world:spawn{ pos = { 450, 300 }, vel = { 60, 0 }, max_speed = 115,
                                max_force = RABBIT_FORCE, radius = 6, tag = "rabbit",
                                color = { 230, 230, 230 }, brain = rabbit_brain }
    world:spawn{ pos = { 100, 120 }, max_speed = 135, max_force = 220, radius = 8,
                 tag = "pursuer", color = { 255, 150, 0 }, catches = 0,
                 behaviors = { { "pursue", target = rabbit } } }
    world:spawn{ pos = { 100, 480 }, max_speed = 135, max_force = 220, radius = 8,
                 tag = "seeker", color = { 80, 150, 255 }, catches = 0,
                 behaviors = { { "seek", target = rabbit } } }
end

-- Catches are decided between steps, so moving the rabbit is safe here.
function scene.update(world)
    local rabbit = first(world, "rabbit")
    rabbit.max_force = RABBIT_FORCE   -- here, so that a reload of this file applies it
    for _, tag in ipairs{ "pursuer", "seeker" } do
        if world:nearest(rabbit, CATCH, tag) then
            local c = first(world, tag)
            c.self.catches = (c.self.catches or 0) + 1
            new_race(world, rabbit)
            return
        end
    end
end

function scene.mousepressed(world, x, y)
    new_race(world, first(world, "rabbit"), { x, y })
end

function scene.draw(world, gfx)
    local rabbit, p, s = first(world, "rabbit"), first(world, "pursuer"), first(world, "seeker")
    -- the pursuer's guess, as in the seeds: position + velocity * (distance / max speed)
    local d = p.pos:dist(rabbit.pos)
    if d < world.width / 2 then
        local guess = rabbit.pos + rabbit.vel * (d / p.max_speed)
        gfx.line(guess - steer.vec2(5, 5), guess + steer.vec2(5, 5), { 255, 150, 0 })
        gfx.line(guess - steer.vec2(5, -5), guess + steer.vec2(5, -5), { 255, 150, 0 })
        gfx.line(p.pos, guess, { 110, 70, 30 })
    end
    gfx.circle(rabbit.pos, THREAT_RADIUS, { 70, 70, 80 })
    gfx.text({ 10, world.height - 24 },
        string.format("races won: pursue %d, seek %d    (click: new race from there)",
            p.self.catches or 0, s.self.catches or 0), { 230, 230, 230 })
end

return scene
