-- lean_prey_steer.lua — lean_prey.lua with agent:nearest and agent:steer
-- (see lean_hunter_steer.lua).
local DANGER = 100

local brain = {}

function brain.spawn(self)
    self.state = "wander"
end

function brain.update(self, agent)
    local hunter = agent:nearest(DANGER, "hunter")
    if hunter then
        self.state = "evade"
        agent:steer("evade", hunter)
    else
        self.state = "wander"
        agent:steer("wander")
    end
end

return brain
