-- deep_scene.lua — 100 agents whose brain (deep_brain.lua) keeps an
-- instance of a hand-written class in self, and a helper module
-- (deep_tally.lua) with state, for tests/app/test_deep_reload.sh, which
-- edits all three while a --realtime run goes on. The scene keeps its own
-- counters in world.user, which must survive its reloads.

local tally = require "deep_tally"

local scene = { config = { width = 400, height = 300, seed = 9, title = "deep reload" } }

local SCENE_VERSION = "scene-v1"

function scene.load(world)
    world.user.loads = (world.user.loads or 0) + 1
    world.user.ticks = 0
    for i = 1, 100 do
        world:spawn { pos = { 4 * i, 150 }, brain = "deep_brain", kind = i % 2 == 0 and "puppy" or "dog" }
    end
end

function scene.update(world)
    world.user.ticks = world.user.ticks + 1
    if world.user.ticks % 30 ~= 0 then return end
    local said = {}
    for a in world:agents() do
        local s = tostring(a.self.said)
        said[s] = (said[s] or 0) + 1
    end
    local parts = {}
    for s, n in pairs(said) do parts[#parts + 1] = s .. "=" .. n end
    table.sort(parts)
    print(("%s ticks=%d loads=%d tally=%d last=%s said %s"):format(SCENE_VERSION, world.user.ticks,
        world.user.loads, tally.n, tostring(tally.last), table.concat(parts, " ")))
end

return scene
