-- bt_brain.lua — bt_scene.lua's brain: settle once, then work for ever,
-- counting the work's ticks in its run's own mem (test_bt_reload.sh edits
-- "v1" and the node's name while the scene runs).
local bt = require "steer.bt"

local tree = bt.sequence { name = "job",
    bt.action(function(_, agent) agent:wander() return true end, "settle"),
    bt.action(function(self, agent, _, mem)
        mem.n = (mem.n or 0) + 1
        self.said = "v1:" .. mem.n
        agent:wander()
        return "running"
    end, "work"),
}

local brain = {}

function brain.update(self, agent, dt)
    tree:tick(self, agent, dt)
end

return brain
