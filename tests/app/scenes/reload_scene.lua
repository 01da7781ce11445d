-- reload_scene.lua — one agent with the `counter` brain, for the hot-reload
-- test (tests/app/test_hot_reload.sh rewrites counter.lua and this file
-- while a --realtime run is going).

local scene = {}

scene.config = { width = 400, height = 300, seed = 3, title = "reload test" }

function scene.load(world)
    print("scene load")
    world:spawn{ pos = { 200, 150 }, brain = "counter" }
end

return scene
