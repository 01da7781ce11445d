-- hunt.lua — the hunter/prey demo, the default scene of `steer`.
--
-- Orange hunters chase grey prey while their stamina lasts (the bar over each
-- hunter), then rest; they spot and chase only prey that no obstacle hides
-- (line of sight, world.user.sight). Prey turn red and evade, flock loosely
-- (ORCA keeps them from overlapping each other), come to the mouse pointer
-- (green) when no hunter is near, and respawn when caught.
-- The brains are hunter.lua and prey.lua: edit them while this runs.
--
-- Mouse: left click drops a prey, right click a hunter.
--
-- Scene args: "bt" gives every hunter the behaviour-tree brain
-- (hunter_bt.lua, steer.bt), "mixed" every other one (pale blue hunters);
-- the default (or any other argument) is the state machine of hunter.lua
-- for all.

local steer = require "steer"

local scene = {}

scene.config = { width = 960, height = 640, edges = "wrap", seed = 4,
                 title = "hunters and prey" }

local PREY, HUNTERS = 40, 3

-- Obstacles as {x, y, radius}: the world holds them for steering (the app
-- draws the world's obstacles), and prey respawn outside them.
local OBSTACLES = {
    { 240, 180, 42 }, { 700, 150, 55 }, { 480, 360, 48 },
    { 190, 470, 34 }, { 780, 470, 40 },
}

local function spawn_prey(world, pos)
    return world:spawn{
        pos = pos, vel = steer.vec2.from_angle(world:random() * 2 * math.pi, 40),
        max_speed = 105, max_force = 380, radius = 5,
        tag = "prey", brain = "prey", obstacles = OBSTACLES,
        -- ORCA among prey only (layer 1, mask 1): the flock never overlaps,
        -- and dodging hunters stays the brain's evade.
        avoidance = "orca", avoid_layer = 1, avoid_mask = 1,
    }
end

-- The brain of the next hunter: world.user.hunters is "fsm", "bt" or "mixed".
local function hunter_brain(world)
    local mode = world.user.hunters or "fsm"
    if mode == "bt" or (mode == "mixed" and world:count("hunter") % 2 == 1) then return "hunter_bt" end
    return "hunter"
end

local function spawn_hunter(world, pos)
    return world:spawn{
        pos = pos, vel = steer.vec2.from_angle(world:random() * 2 * math.pi, 40),
        max_speed = 128, max_force = 260, radius = 10,
        tag = "hunter", brain = hunter_brain(world),
        avoid_layer = 2,   -- not on the prey's mask: ORCA prey do not yield to hunters
    }
end

-- A random point outside every obstacle.
local function open_point(world)
    while true do
        local p = steer.vec2(world:random() * world.width, world:random() * world.height)
        local clear = true
        for _, o in ipairs(OBSTACLES) do
            if p:dist(steer.vec2(o[1], o[2])) < o[3] + 20 then clear = false break end
        end
        if clear then return p end
    end
end

local MODES = { fsm = true, bt = true, mixed = true }

function scene.load(world, args)
    -- the first argument that names a mode; others are left to scenes that
    -- build on this one (tests/app/scenes/soak.lua passes its folder)
    local mode = "fsm"
    for _, a in ipairs(args or {}) do
        if MODES[a] then mode = a break end
    end
    world.user.hunters = mode
    for _, o in ipairs(OBSTACLES) do world:obstacle({ o[1], o[2] }, o[3]) end
    -- line of sight for the hunters (hunter.lua): they do not see through obstacles
    world.user.sight = world:navgrid { cell = 20, clearance = 0 }
    for _ = 1, PREY do spawn_prey(world, open_point(world)) end
    for _ = 1, HUNTERS do spawn_hunter(world, open_point(world)) end
end

-- The score lives in the hunters' own state, so it survives every reload.
function scene.score(world)
    local total = 0
    for h in world:agents("hunter") do total = total + (h.self.catches or 0) end
    return total
end

function scene.draw(world, gfx)
    local chasing, resting = 0, 0
    for h in world:agents("hunter") do
        if h.self.state == "pursue" then chasing = chasing + 1 end
        if h.self.state == "rest" then resting = resting + 1 end
    end
    local fleeing = 0
    for p in world:agents("prey") do
        if p.self.state == "evade" then fleeing = fleeing + 1 end
    end
    gfx.text({ 10, world.height - 22 },
        string.format("caught: %d    hunters chasing: %d  resting: %d    prey fleeing: %d / %d",
            scene.score(world), chasing, resting, fleeing, world:count("prey")),
        { 230, 230, 230 })
end

function scene.mousepressed(world, x, y, button)
    if button == 1 then
        spawn_prey(world, { x, y })
    elseif button == 2 then -- right (as in LÖVE: 1 left, 2 right, 3 middle)
        spawn_hunter(world, { x, y })
    end
end

return scene
