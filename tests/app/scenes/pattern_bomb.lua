-- pattern_bomb.lua — a backtracking pattern that would run for hours in C:
--   steer --headless pattern_bomb.lua -- load    the bomb in scene.load
--   steer --headless pattern_bomb.lua -- brain   the bomb in a brain's update
-- Either way the callback must stop with "instruction budget exceeded" well
-- within a second, and the world must keep stepping (a counter brain runs).

local scene = {}

scene.config = { width = 200, height = 200, seed = 3 }

local function bomb()
    local t0 = os.clock()
    local ok, err = pcall(string.find, string.rep("a", 3e5), ".-.-.-.-.-b")
    print(("ESCAPED pattern bomb: %s %s after %.2f s"):format(tostring(ok), tostring(err), os.clock() - t0))
end

function scene.load(world, args)
    world:spawn{ pos = { 50, 50 }, brain = "counter" }
    if args[1] == "brain" then
        world:spawn{ pos = { 100, 100 }, brain = "pattern_bomb_brain" }
    else
        bomb()
    end
end

return scene
