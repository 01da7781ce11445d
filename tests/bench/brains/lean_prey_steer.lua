-- lean_prey_steer.lua — lean_prey.lua with a:nearest and a:steer kept in
-- locals from steer.agent (see lean_hunter_steer.lua).
local A = require("steer").agent
local nearest, steer = A.nearest, A.steer

local DANGER = 100

local brain = {}

function brain.spawn(self)
    self.state = "wander"
end

function brain.update(self, agent)
    local hunter = nearest(agent, DANGER, "hunter")
    if hunter then
        self.state = "evade"
        steer(agent, "evade", hunter)
    else
        self.state = "wander"
        steer(agent, "wander")
    end
end

return brain
