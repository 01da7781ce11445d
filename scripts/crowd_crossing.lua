-- crowd_crossing.lua — crowds that must not collide: RVO2's circle and four
-- crossing flows, with four kinds of avoidance to compare.
--
--   1 / C   circle: agents on a circle, each walks to the opposite point
--   2 / F   four flows streaming across the centre from the four sides;
--           an agent reaching the far side starts again from its own side
--   O       ORCA (avoidance = "orca"): no overlap among ORCA agents
--   A       predictive avoidance (standing "avoid_agents"), no ORCA
--   S       plain separation (standing "separate")
--   X       no avoidance at all
--
-- The HUD counts collisions live: pairs overlapping now, overlapping pair-steps
-- so far, and arrivals; a mode change restarts the counts. Click an agent to
-- see its ORCA half-planes (F11 toggles them).
--
-- Headless: build/steer --headless --ticks 1200 scripts/crowd_crossing.lua -- flows orca
-- (scenario "circle" or "flows", avoidance "orca", "predict", "separate", "none");
-- a summary line is printed every REPORT_EVERY ticks.

local steer = require "steer"

local scene = {}

scene.config = { width = 960, height = 640, edges = "none", seed = 11,
                 title = "crowd crossing: circle and four flows" }

local CIRCLE_AGENTS = 160     -- RVO2's circle at the app's scale
local CIRCLE_RADIUS = 290
local FLOW_AGENTS = 60        -- per flow, four flows
local FLOW_WIDTH = 140        -- each flow's band across the centre
local RADIUS = 4
local MAX_SPEED = 60
local MAX_FORCE = 240
local SEPARATION_RADIUS = 18
local REPORT_EVERY = 600
local MARGIN = 12             -- flows start and end this far inside the edges

local MODES = {
    orca     = { key = "o", name = "ORCA" },
    predict  = { key = "a", name = "predictive (avoid_agents)" },
    separate = { key = "s", name = "separation" },
    none     = { key = "x", name = "none" },
}
local MODE_KEYS = { o = "orca", a = "predict", s = "separate", x = "none" }
local SCENARIO_KEYS = { ["1"] = "circle", c = "circle", ["2"] = "flows", f = "flows" }

-- The four flows: unit direction and the colour of each.
local FLOWS = {
    { dir = { 1, 0 },  color = { 90, 170, 255 } },
    { dir = { -1, 0 }, color = { 255, 150, 70 } },
    { dir = { 0, 1 },  color = { 110, 220, 120 } },
    { dir = { 0, -1 }, color = { 230, 110, 230 } },
}

-- Obstacles in the flows: a polygon and a circle a little off the centre.
local POLYGON = { { 360, 200 }, { 420, 190 }, { 410, 250 }, { 370, 240 } }
local CIRCLE_OBSTACLE = { pos = { 610, 420 }, radius = 26 }

local function state(world) return world.user end

-- Standing behaviours for a goal under the avoidance mode.
local function behaviors(mode, seek, goal)
    local list = { seek and { "seek", target = goal } or { "arrive", target = goal, slowing_radius = 40 } }
    if mode == "predict" then
        list[#list + 1] = { "avoid_agents", weight = 2 }
    elseif mode == "separate" then
        list[#list + 1] = { "separate", radius = SEPARATION_RADIUS, weight = 2 }
    end
    if seek then list[#list + 1] = { "avoid_obstacles" } end
    return list
end

local function apply_mode(a, mode)
    a.avoidance = mode == "orca" and "orca" or "none"
    a.behaviors = behaviors(mode, a.self.flow ~= nil, a.self.goal)
end

-- Flow f's start and goal for lateral offset l (across the band).
local function flow_ends(world, f, l)
    local d = FLOWS[f].dir
    local cx, cy = world.width / 2, world.height / 2
    local hx, hy = world.width / 2 - MARGIN, world.height / 2 - MARGIN
    local sx, sy = cx - d[1] * hx - d[2] * l, cy - d[2] * hy + d[1] * l
    local gx, gy = cx + d[1] * hx - d[2] * l, cy + d[2] * hy + d[1] * l
    return steer.vec2(sx, sy), steer.vec2(gx, gy)
end

-- A start spot of flow f no agent occupies, or nil.
local function free_start(world, f)
    for _ = 1, 8 do
        local l = (world:random() - 0.5) * FLOW_WIDTH
        local start, goal = flow_ends(world, f, l)
        if not world:nearest(start, 3 * RADIUS) then return start, goal end
    end
end

local function spawn(world, pos, goal, color, flow)
    local a = world:spawn{
        pos = pos, max_speed = MAX_SPEED, max_force = MAX_FORCE, radius = RADIUS,
        color = color, tag = "walker", goal = goal, flow = flow,
    }
    apply_mode(a, state(world).mode)
    return a
end

local function populate(world)
    local s = state(world)
    for a in world:agents() do world:remove(a) end
    for _, o in ipairs(world:obstacles()) do world:remove_obstacle(o) end
    if s.scenario == "circle" then
        local cx, cy = world.width / 2, world.height / 2
        local r = math.min(CIRCLE_RADIUS, cy - MARGIN)
        for i = 1, CIRCLE_AGENTS do
            local t = 2 * math.pi * (i - 1) / CIRCLE_AGENTS
            local pos = steer.vec2(cx + r * math.cos(t), cy + r * math.sin(t))
            local goal = steer.vec2(cx - r * math.cos(t), cy - r * math.sin(t))
            -- colour by starting angle: the rainbow shows who goes where
            local c = { math.floor(127 + 120 * math.cos(t)), math.floor(127 + 120 * math.cos(t + 2.1)),
                        math.floor(127 + 120 * math.cos(t + 4.2)) }
            spawn(world, pos, goal, c)
        end
    else
        world:add_obstacle{ polygon = POLYGON }
        world:add_obstacle(CIRCLE_OBSTACLE)
        -- spread each flow along its way at the start, so they meet at once
        for f = 1, #FLOWS do
            local d = FLOWS[f].dir
            local placed = 0
            while placed < FLOW_AGENTS do
                local l = (world:random() - 0.5) * FLOW_WIDTH
                local start, goal = flow_ends(world, f, l)
                local along = world:random() * 0.45 * (d[1] ~= 0 and world.width or world.height)
                local pos = start + steer.vec2(d[1], d[2]) * along
                if not world:nearest(pos, 3 * RADIUS) then
                    spawn(world, pos, goal, FLOWS[f].color, f)
                    placed = placed + 1
                end
            end
        end
    end
    s.overlaps, s.pair_steps, s.arrivals, s.since = 0, 0, 0, world.tick
end

-- Pairs overlapping now, each once: neighbours within two radii, by id.
local function count_overlaps(world)
    local n = 0
    for a in world:agents() do
        for _, b in ipairs(world:neighbors(a, 2 * RADIUS)) do
            if b.id > a.id and a.pos:dist(b.pos) < a.radius + b.radius then n = n + 1 end
        end
    end
    return n
end

local function report(world)
    local s = state(world)
    print(("crowd_crossing: scenario=%s avoidance=%s ticks=%d overlapping_now=%d pair_steps=%d arrivals=%d")
        :format(s.scenario, s.mode, world.tick + 1 - s.since, s.overlaps, s.pair_steps, s.arrivals))
end

function scene.load(world, args)
    world.user.scenario, world.user.mode = "circle", "orca"
    for _, arg in ipairs(args or {}) do
        if arg == "circle" or arg == "flows" then world.user.scenario = arg end
        if MODES[arg] then world.user.mode = arg end
    end
    populate(world)
end

function scene.update(world)
    local s = state(world)
    s.overlaps = count_overlaps(world)
    s.pair_steps = s.pair_steps + s.overlaps
    for a in world:agents() do
        local self = a.self
        if self.flow then
            -- past the goal line: start again from the own side
            local d = FLOWS[self.flow].dir
            if (a.pos - self.goal):dot(steer.vec2(d[1], d[2])) > -2 then
                local start, goal = free_start(world, self.flow)
                if start then
                    s.arrivals = s.arrivals + 1
                    a.pos, a.vel = start, steer.vec2(d[1], d[2]) * (MAX_SPEED * 0.5)
                    self.goal = goal
                    apply_mode(a, s.mode)
                end
            end
        elseif not self.arrived and a.pos:dist(self.goal) < 2 * RADIUS then
            self.arrived = true
            s.arrivals = s.arrivals + 1
        end
    end
    -- the counts now cover the states of ticks 0 .. world.tick
    if (world.tick + 1) % REPORT_EVERY == 0 then report(world) end
end

function scene.keypressed(world, key)
    key = key:lower()
    local s = state(world)
    if SCENARIO_KEYS[key] then
        s.scenario = SCENARIO_KEYS[key]
        populate(world)
    elseif MODE_KEYS[key] then
        s.mode = MODE_KEYS[key]
        populate(world)   -- the same start for every mode, counts from zero
    end
end

function scene.draw(world, gfx)
    local s = state(world)
    local total = s.scenario == "circle" and CIRCLE_AGENTS or nil
    local lines = {
        ("%s, avoidance: %s    (1/C circle, 2/F flows;  O ORCA, A predictive, S separate, X none)")
            :format(s.scenario == "circle" and "circle" or "four flows", MODES[s.mode].name),
        ("overlapping pairs now: %d    overlapping pair-steps: %d    arrivals: %d%s    t = %.1f s")
            :format(s.overlaps, s.pair_steps, s.arrivals, total and (" / " .. total) or "",
                    (world.tick - s.since) * world.dt),
    }
    for i, text in ipairs(lines) do
        gfx.text({ 10, world.height - 44 + 20 * (i - 1) }, text,
            i == 2 and s.overlaps > 0 and { 255, 120, 100 } or { 230, 230, 230 })
    end
end

return scene
