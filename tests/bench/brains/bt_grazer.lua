-- bt_grazer.lua — the benchmark's behaviour-tree brain (tests/bench/bt.lua):
-- 11 nodes of steer.bt, the calls kept lean (a:nearest, a:steer from
-- steer.agent) so the row measures the tree more than the steering.
--
--   selector (reactive)
--     evade:  threat? -> flee
--     forage: cooldown 1 s (hungry?) -> graze      (graze runs until full)
--     roam:   parallel (one) { wait 2 s, wander }
--
-- bt_grazer_plain.lua is the same agent written as if/else: the same
-- checksum, so the difference between the two rows is the tree's cost.
local A = require("steer").agent
local nearest, steer = A.nearest, A.steer
local bt = require "steer.bt"

local THREAT, HUNGRY, FULL, GRAZE, BURN = 40, 50, 100, 40, 8

local function threat(self, agent)
    self.threat = nearest(agent, THREAT, "hunter")
    return self.threat ~= nil
end

local function flee(self, agent)
    steer(agent, "evade", self.threat)
    return true
end

local function hungry(self) return self.energy < HUNGRY end

local function graze(self, agent, dt)
    steer(agent, "wander", 0.2)
    self.energy = self.energy + GRAZE * dt
    return self.energy >= FULL
        and "success" or "running"
end

local function wander(self, agent, dt)
    steer(agent, "wander")
    self.energy = self.energy - BURN * dt
    return "running"
end

local tree = bt.selector { name = "grazer", reactive = true,
    bt.sequence { name = "evade", bt.condition(threat, "threat"), bt.action(flee, "flee") },
    bt.sequence { name = "forage", bt.cooldown(1, bt.condition(hungry, "hungry")), bt.action(graze, "graze") },
    bt.parallel { name = "roam", success = "one", bt.wait(2, "stroll"), bt.action(wander, "wander") },
}

local brain = {}

function brain.update(self, agent, dt)
    tree:tick(self, agent, dt)
end

return brain
