-- lean_hunter_steer.lua — lean_hunter.lua written the way docs/API.md gives
-- for thousands of brains: a:nearest (no agent.world read first) and
-- a:steer (the behaviour without its vec2 result, so no garbage), kept in
-- locals from steer.agent (no __index call to find them). Same agents,
-- same forces, same checksum as lean_hunter.lua.
local A = require("steer").agent
local nearest, steer = A.nearest, A.steer

local SIGHT, MAX_STAMINA, DRAIN, RECOVER = 150, 100, 30, 40

local brain = {}

function brain.spawn(self)
    self.state = "wander"
    self.stamina = MAX_STAMINA
end

function brain.update(self, agent, dt)
    if self.state == "rest" then
        steer(agent, "wander", 0.5)
        self.stamina = self.stamina + RECOVER * dt
        if self.stamina >= MAX_STAMINA then self.state = "wander" end
        return
    end
    local prey = nearest(agent, SIGHT, "prey")
    if prey and self.stamina > 0 then
        self.state = "pursue"
        steer(agent, "pursue", prey)
        self.stamina = self.stamina - DRAIN * dt
    elseif prey then
        self.state = "rest"
    else
        self.state = "wander"
        steer(agent, "wander")
    end
end

return brain
