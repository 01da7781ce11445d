-- crowd.lua — N wandering agents on a 1280 x 800 view, for the drawing
-- benchmark:  steer --headless --ticks 5 --draw-frames 30 tests/bench/crowd.lua -- 10000
local steer = require "steer"

local scene = { config = { width = 1280, height = 800, edges = "wrap", seed = 3, title = "crowd" } }

function scene.load(world, args)
    local n = tonumber(args and args[1]) or 10000
    for _ = 1, n do
        world:spawn{ pos = { world:random() * 1280, world:random() * 800 },
                     vel = steer.vec2.from_angle(world:random() * 2 * math.pi, 60),
                     radius = 3, behaviors = { "wander" } }
    end
end

return scene
