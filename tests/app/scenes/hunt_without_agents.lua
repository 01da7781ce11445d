-- hunt_without_agents.lua — the demo (scripts/hunt.lua) with every agent
-- removed after its load: the same obstacles, HUD and scene drawing, so the
-- screenshot test can tell what the agents themselves add to the frame.
local hunt = require "hunt"

local scene = setmetatable({}, { __index = hunt })

function scene.load(world, args)
    hunt.load(world, args)
    local all = {}
    for a in world:agents() do all[#all + 1] = a end
    for _, a in ipairs(all) do world:remove(a) end
end

return scene
