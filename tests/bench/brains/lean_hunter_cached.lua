-- lean_hunter_cached.lua — lean_hunter.lua with its nearest query made once
-- and its answer kept: steer_bench's density rows time it against the full
-- lean hunter to tell the query's cost from the Lua and behaviour calls'.
local SIGHT, MAX_STAMINA, DRAIN, RECOVER = 150, 100, 30, 40

local brain = {}

function brain.spawn(self)
    self.state = "wander"
    self.stamina = MAX_STAMINA
end

function brain.update(self, agent, dt)
    if self.state == "rest" then
        agent:wander(0.5)
        self.stamina = self.stamina + RECOVER * dt
        if self.stamina >= MAX_STAMINA then self.state = "wander" end
        return
    end
    if self.near == nil then self.near = agent.world:nearest(agent, SIGHT, "prey") or false end
    local prey = self.near
    if prey and self.stamina > 0 then
        self.state = "pursue"
        agent:pursue(prey)
        self.stamina = self.stamina - DRAIN * dt
    elseif prey then
        self.state = "rest"
    else
        self.state = "wander"
        agent:wander()
    end
end

return brain
