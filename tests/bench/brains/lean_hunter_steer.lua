-- lean_hunter_steer.lua — lean_hunter.lua written with the calls made for
-- thousands of brains: agent:nearest (no agent.world read first) and
-- agent:steer (the behaviour without its vec2 result, so no garbage).
-- Same agents, same forces, same checksum as lean_hunter.lua.
local SIGHT, MAX_STAMINA, DRAIN, RECOVER = 150, 100, 30, 40

local brain = {}

function brain.spawn(self)
    self.state = "wander"
    self.stamina = MAX_STAMINA
end

function brain.update(self, agent, dt)
    if self.state == "rest" then
        agent:steer("wander", 0.5)
        self.stamina = self.stamina + RECOVER * dt
        if self.stamina >= MAX_STAMINA then self.state = "wander" end
        return
    end
    local prey = agent:nearest(SIGHT, "prey")
    if prey and self.stamina > 0 then
        self.state = "pursue"
        agent:steer("pursue", prey)
        self.stamina = self.stamina - DRAIN * dt
    elseif prey then
        self.state = "rest"
    else
        self.state = "wander"
        agent:steer("wander")
    end
end

return brain
