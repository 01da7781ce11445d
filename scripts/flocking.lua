-- flocking.lua — Reynolds' three rules with a view cone (seed 003).
--
-- Blue units flock with blue, purple interceptors with purple. A unit that
-- sees nobody in front of it (a narrow 45 degree cone) is a leader and turns
-- red: blue leaders pursue the green runner, purple leaders intercept it
-- (aim for the earliest point where they can meet it). The rest follow.
-- Keys: 1 wide view (270 degrees), 2 limited (180), 3 narrow (45),
--       F flocking on/off (off: everybody chases). The mouse steers the runner.

local steer = require "steer"

local scene = {}

scene.config = { width = 960, height = 640, edges = "wrap", seed = 5,
                 title = "flocking: wide / limited / narrow view, leaders and interceptors" }

local UNITS, INTERCEPTORS = 45, 12
local VIEWS = {   -- the seed's three view modes: a cone angle and a radius each
    wide    = { fov = math.rad(270), radius = 60 },
    limited = { fov = math.rad(180), radius = 55 },
    narrow  = { fov = math.rad(45),  radius = 90 },
}
local VIEW_KEYS = { "wide", "limited", "narrow" }
local LEADER_VIEW = { fov = math.rad(45), radius = 120 }
local RUNNER_PANIC = 90   -- the runner dodges units closer than this
local COLOR = {
    unit = { 90, 150, 255 }, interceptor = { 175, 110, 240 },
    leader = { 255, 70, 60 }, interceptor_leader = { 255, 120, 200 },
}

-- Its brain calls through `scene`, so saving this file reaches the
-- runner that already runs.
local runner_brain = { update = function(...) return scene.runner_update(...) end }
function scene.runner_update(_, a)
    local m = steer.mouse and steer.mouse()
    -- dodge the closest chasers first, then go where it wants
    for _, u in ipairs(a.world:neighbors(a, RUNNER_PANIC)) do a:evade(u, RUNNER_PANIC, 0.7) end
    if m then a:arrive(m, 60) else a:wander() end
end

local function runner(world)
    local iter, state, ctl = world:agents("runner")
    return iter(state, ctl)
end

-- The standing behaviours of one unit for its role and the current settings.
local function behaviors(a, target)
    local s = a.self
    local view = VIEWS[s.view]
    local chase = s.leader or not s.flocking
    local list = {
        { "flock", radius = view.radius, fov = view.fov, tag = a.tag,
          separation = 2, alignment = chase and 0 or 1, cohesion = chase and 0 or 1 },
    }
    if chase then
        list[#list + 1] = { a.tag == "interceptor" and "intercept" or "pursue", target = target }
    else
        list[#list + 1] = { "wander", weight = 0.2 }
    end
    return list
end

local function colour(a)
    local leader = a.self.leader or not a.self.flocking
    if a.tag == "interceptor" then
        return leader and COLOR.interceptor_leader or COLOR.interceptor
    end
    return leader and COLOR.leader or COLOR.unit
end

local function refresh(a, target)
    a.behaviors = behaviors(a, target)
    a.color = colour(a)
end

function scene.load(world)
    local target = world:spawn{ pos = { 480, 320 }, max_speed = 150, max_force = 300,
                                radius = 7, tag = "runner", color = { 80, 230, 100 },
                                brain = runner_brain, combine = "priority" }
    for i = 1, UNITS + INTERCEPTORS do
        local a = world:spawn{
            pos = { world:random() * world.width, world:random() * world.height },
            vel = steer.vec2.from_angle(world:random() * 2 * math.pi, 60),
            max_speed = 100, max_force = 220, radius = 5,
            tag = i <= UNITS and "unit" or "interceptor",
            view = "wide", flocking = true, leader = false,
        }
        refresh(a, target)
    end
end

-- Leadership is re-decided every step, as in the seed: nobody ahead means lead.
function scene.update(world)
    local target = runner(world)
    for _, tag in ipairs{ "unit", "interceptor" } do
        for a in world:agents(tag) do
            local ahead = world:neighbors(a, LEADER_VIEW.radius, { tag = tag, fov = LEADER_VIEW.fov })
            local leader = #ahead == 0
            if leader ~= a.self.leader then
                a.self.leader = leader
                refresh(a, target)
            end
        end
    end
end

local function each_unit(world, fn)
    for _, tag in ipairs{ "unit", "interceptor" } do
        for a in world:agents(tag) do fn(a) end
    end
end

function scene.keypressed(world, key)
    key = key:lower()
    local target = runner(world)
    local view = VIEW_KEYS[tonumber(key)]
    if view then
        each_unit(world, function(a) a.self.view = view refresh(a, target) end)
    elseif key == "f" then
        each_unit(world, function(a) a.self.flocking = not a.self.flocking refresh(a, target) end)
    end
end

function scene.draw(world, gfx)
    local any, leaders = nil, 0
    each_unit(world, function(a)
        any = any or a
        if a.self.leader then leaders = leaders + 1 end
    end)
    local r = runner(world)
    gfx.circle(r.pos, 12, { 80, 230, 100 })
    local s = any.self
    gfx.text({ 10, world.height - 24 },
        string.format("view: %s (%d deg, r %d)   flocking %s   leaders %d    keys 1 wide  2 limited  3 narrow  F flock",
            s.view, math.floor(math.deg(VIEWS[s.view].fov) + 0.5), VIEWS[s.view].radius,
            s.flocking and "on" or "off", leaders), { 230, 230, 230 })
end

return scene
