-- redteam_brain.lua — runs redteam.lua's current attempt in a brain's update.
local brain = {}
function brain.update(_, agent)
    REDTEAM.run_current(agent) -- luacheck: ignore 113
end
return brain
