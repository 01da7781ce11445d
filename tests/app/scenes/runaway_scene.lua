-- runaway_scene.lua — brains (and the scene's own update) that try to
-- freeze the app or eat its memory, and to hide the error that stops them.
-- Each must raise in its own callback ("instruction budget exceeded" / "not
-- enough memory") while a plain brain keeps running; none may print ESCAPED.

local scene = {}

scene.config = { width = 300, height = 300, seed = 2 }

function scene.load(world)
    for _, b in ipairs{ "runaway_pcall", "runaway_xpcall", "runaway_coroutine", "memory_bomb" } do
        world:spawn{ pos = { 150, 150 }, brain = b }
    end
    world:spawn{ pos = { 50, 50 }, brain = "counter" }
end

-- The app stops calling a scene.update that raised, until the scene reloads.
function scene.update()
    local n = 0
    while true do n = n + 1 end
end

return scene
