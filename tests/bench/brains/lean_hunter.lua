-- lean_hunter.lua — the benchmark's hunter: the workload issue 4 defines for
-- "10k agents with Lua brains" (a state machine, a nearest query and one or
-- two behaviour calls per step). The demo's own hunter is scripts/hunter.lua.
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
    local prey = agent.world:nearest(agent, SIGHT, "prey")
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
