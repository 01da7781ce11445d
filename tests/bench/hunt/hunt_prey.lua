-- hunt_prey.lua — issue 30's prey (tests/bench/hunt.lua): evade the nearest
-- hunter within 100, else wander. The plain documented API only.
local DANGER = 100

local brain = {}

function brain.update(_, agent)
    local hunter = agent.world:nearest(agent, DANGER, "hunter")
    if hunter then
        agent:evade(hunter, DANGER)
    else
        agent:wander()
    end
end

return brain
