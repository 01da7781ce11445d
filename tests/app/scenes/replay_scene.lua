-- replay_scene.lua — tests/app/test_replay.sh: wanderers with a brain
-- (replay_brain.lua) that keeps numbers and a state name in self, marks on
-- the timeline, and reports clicks and keys (which only a replay can feed
-- a headless run).
local steer = require "steer"
local scene = { config = { width = 400, height = 300, seed = 7 } }
scene.trace = { "energy", "state", "turns" }

function scene.load(world)
    for i = 1, 6 do
        world:spawn{ pos = { 40 + i * 50, 150 }, vel = { 20, 0 }, max_speed = 60, max_force = 120,
                     brain = "replay_brain", tag = "walker" }
    end
end

function scene.update(world)
    if world.tick == 30 then world:mark("thirty") end
end

function scene.mousepressed(world, x, y, button)
    print(string.format("clicked %.17g %.17g %d at tick %d", x, y, button, world.tick))
    world:spawn{ pos = { x, y }, max_speed = 60, max_force = 120, brain = "replay_brain", tag = "walker" }
end

function scene.keypressed(world, key)
    print(string.format("key %s at tick %d mouse %s", key, world.tick, tostring(steer.mouse())))
end

return scene
