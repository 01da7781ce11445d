-- hunt_hunter.lua — issue 30's hunter (tests/bench/hunt.lua): pursue the
-- nearest prey within 120 while stamina lasts, rest when spent, wander
-- otherwise. The plain documented API only: agent.world:nearest,
-- agent:pursue, agent:wander.
local SIGHT, MAX_STAMINA, DRAIN, RECOVER = 120, 100, 30, 40

local brain = {}

function brain.spawn(self)
    self.stamina = MAX_STAMINA
    self.resting = false
end

function brain.update(self, agent, dt)
    if self.resting then
        agent:wander()
        self.stamina = self.stamina + RECOVER * dt
        if self.stamina >= MAX_STAMINA then self.resting = false end
        return
    end
    local prey = agent.world:nearest(agent, SIGHT, "prey")
    if prey then
        agent:pursue(prey)
        self.stamina = self.stamina - DRAIN * dt
        if self.stamina <= 0 then self.resting = true end
    else
        agent:wander()
    end
end

return brain
