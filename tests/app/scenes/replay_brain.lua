-- replay_brain.lua — tests/app/test_replay.sh: wanders, burns energy and
-- switches state at thresholds. SPEEDUP is what the tests edit.
local brain = {}
local SPEEDUP = 1.0

function brain.spawn(self, agent)
    self.energy, self.turns, self.state = 100.0, 0, "roam"
end

function brain.update(self, agent, dt)
    agent:wander()
    agent.max_speed = self.state == "rest" and 20 or 60
    self.energy = self.energy - agent.speed * dt * 0.5 * SPEEDUP
    if self.state == "roam" and self.energy < 60 then
        self.state, self.turns = "rest", self.turns + 1
    elseif self.state == "rest" then
        self.energy = self.energy + 20 * dt
        if self.energy > 90 then self.state = "roam" end
    end
end

return brain
