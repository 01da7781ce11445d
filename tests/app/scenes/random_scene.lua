-- random_scene.lua — agents placed with math.random: with the same seed two
-- runs must match (math.random draws from the world's seeded stream), with
-- another seed they must not.

local scene = {}

scene.config = { width = 500, height = 500, seed = 11 }

function scene.load(world)
    for _ = 1, 20 do
        world:spawn{ pos = { math.random() * 500, math.random(0, 500) }, max_speed = 80,
                     behaviors = { { "wander" } } }
    end
    print(("first draws %d %d"):format(math.random(1, 1000000), math.random(1000000)))
end

return scene
