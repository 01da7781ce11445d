-- lean_prey_cached.lua — lean_prey.lua with its nearest query made once and
-- its answer kept (see lean_hunter_cached.lua).
local DANGER = 100

local brain = {}

function brain.spawn(self)
    self.state = "wander"
end

function brain.update(self, agent)
    if self.near == nil then self.near = agent.world:nearest(agent, DANGER, "hunter") or false end
    local hunter = self.near
    if hunter then
        self.state = "evade"
        agent:evade(hunter)
    else
        self.state = "wander"
        agent:wander()
    end
end

return brain
