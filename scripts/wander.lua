-- wander.lua — Reynolds' wander: a target jittered along a circle held
-- ahead of the vehicle. The circle is drawn for each wanderer, with the
-- steering force as an arrow.
--
-- Keys: 1 calm, 2 default, 3 twitchy (circle distance, radius, jitter).

local scene = {}

scene.config = { width = 800, height = 600, edges = "wrap", seed = 3,
                 title = "wander: the circle ahead and its jittered target" }

local COUNT = 12
local PRESETS = {
    { name = "calm",    distance = 80, radius = 20, jitter = 80 },
    { name = "default", distance = 60, radius = 30, jitter = 240 },
    { name = "twitchy", distance = 25, radius = 40, jitter = 600 },
}

local function apply(a, p)
    a.wander_distance, a.wander_radius, a.wander_jitter = p.distance, p.radius, p.jitter
end

function scene.load(world)
    for i = 1, COUNT do
        local hue = (i - 1) / COUNT
        world:spawn{
            pos = { world:random() * world.width, world:random() * world.height },
            vel = { world:random(-50, 50), world:random(-50, 50) },
            max_speed = 90, max_force = 200, radius = 6, tag = "wanderer",
            color = { math.floor(120 + 135 * hue), math.floor(220 - 120 * hue), 200 },
            behaviors = { { "wander" } },
        }
    end
    for a in world:agents("wanderer") do apply(a, PRESETS[2]) end
end

function scene.keypressed(world, key)
    local p = PRESETS[tonumber(key)]
    if p then
        for a in world:agents("wanderer") do apply(a, p) end
    end
end

function scene.draw(world, gfx)
    local shown
    for a in world:agents("wanderer") do
        local centre = a.pos + a.heading * a.wander_distance
        gfx.line(a.pos, centre, { 70, 70, 80 })
        gfx.circle(centre, a.wander_radius, { 90, 90, 110 })
        gfx.arrow(a.pos, a.force * 0.15, { 255, 120, 120 })
        shown = shown or a
    end
    local name = "custom"
    for _, p in ipairs(PRESETS) do
        if p.distance == shown.wander_distance and p.radius == shown.wander_radius
            and p.jitter == shown.wander_jitter then name = p.name end
    end
    gfx.text({ 10, world.height - 24 },
        string.format("%s: distance %.0f  radius %.0f  jitter %.0f/s    keys 1 calm  2 default  3 twitchy",
            name, shown.wander_distance, shown.wander_radius, shown.wander_jitter), { 230, 230, 230 })
end

return scene
