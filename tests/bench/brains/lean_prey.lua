-- lean_prey.lua — the benchmark's prey (see lean_hunter.lua): evade the
-- nearest hunter in range, else wander.
local DANGER = 100

local brain = {}

function brain.spawn(self)
    self.state = "wander"
end

function brain.update(self, agent)
    local hunter = agent.world:nearest(agent, DANGER, "hunter")
    if hunter then
        self.state = "evade"
        agent:evade(hunter)
    else
        self.state = "wander"
        agent:wander()
    end
end

return brain
