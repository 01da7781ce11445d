-- scene.lua — the benchmark's 10k brains, run by the app itself (the Lua
-- state of `make demo`: sandbox, instruction budget, pooled allocator):
--   steer --headless --ticks 300 tests/bench/brains/scene.lua -- [HUNTER PREY]
-- Density and mix of the demo (scripts/hunt.lua: 40 prey and 3 hunters on
-- 960 x 640), as the "lua brains" rows of steer_bench (tests/bench/bench.c).
local N, EVERY = 10000, 14
local SIDE = math.sqrt(N * (960 * 640) / 43)

local scene = { config = { width = SIDE, height = SIDE, edges = "wrap", seed = 7, title = "brains" } }

function scene.load(world, args)
    local hunter_brain = args and args[1] or "lean_hunter"
    local prey_brain = args and args[2] or "lean_prey"
    for i = 1, N do
        local hunter = i % EVERY == 0
        world:spawn{ pos = { world:random() * SIDE, world:random() * SIDE },
                     tag = hunter and "hunter" or "prey", brain = hunter and hunter_brain or prey_brain,
                     max_speed = hunter and 160 or 150 }
    end
end

return scene
